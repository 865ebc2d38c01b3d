/**
 * One example input per detected placeholder ({{1}} or {{nombre}}): Meta reviews templates
 * with these values. `names` are the placeholders in the order Meta expects their examples.
 */
export function ExampleInputs({
  title,
  names,
  values,
  onChange,
}: {
  title: string;
  names: string[];
  values: Record<string, string>;
  onChange: (values: Record<string, string>) => void;
}) {
  if (!names.length) return null;
  return (
    <div className="rounded-md border border-blue-100 bg-blue-50 p-3">
      <p className="mb-2 text-xs font-medium text-blue-900">{title}</p>
      <div className="grid grid-cols-1 gap-2 sm:grid-cols-2">
        {names.map((name) => (
          <label key={name} className="flex min-w-0 items-center gap-2 text-sm">
            <span className="max-w-32 shrink-0 truncate font-mono text-blue-800">{`{{${name}}}`}</span>
            <input
              aria-label={`${title} {{${name}}}`}
              className="w-full min-w-0 rounded-md border border-gray-300 px-2 py-1 text-sm focus:border-blue-500"
              value={values[name] ?? ''}
              placeholder="Valor de ejemplo"
              onChange={(e) => onChange({ ...values, [name]: e.target.value })}
            />
          </label>
        ))}
      </div>
    </div>
  );
}
