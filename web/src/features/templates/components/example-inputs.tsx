import { placeholdersOf } from '@masivo/contract/variables';

/** One example input per detected {{n}}: Meta reviews templates with these values. */
export function ExampleInputs({ title, text, values, onChange }: { title: string; text: string; values: string[]; onChange: (values: string[]) => void }) {
  const numbers = [...placeholdersOf(text)].sort((a, b) => a - b);
  if (!numbers.length) return null;
  return (
    <div className="rounded-md border border-blue-100 bg-blue-50 p-3">
      <p className="mb-2 text-xs font-medium text-blue-900">{title}</p>
      <div className="grid grid-cols-1 gap-2 sm:grid-cols-2">
        {numbers.map((n) => (
          <label key={n} className="flex items-center gap-2 text-sm">
            <span className="w-12 shrink-0 font-mono text-blue-800">{`{{${n}}}`}</span>
            <input
              aria-label={`${title} {{${n}}}`}
              className="w-full rounded-md border border-gray-300 px-2 py-1 text-sm focus:border-blue-500"
              value={values[n - 1] ?? ''}
              placeholder="Valor de ejemplo"
              onChange={(e) => {
                const next = [...values];
                next[n - 1] = e.target.value;
                onChange(next);
              }}
            />
          </label>
        ))}
      </div>
    </div>
  );
}
