import { cn } from './cn';

/** The header row every list table of the console shares. */
export function TableHead({ columns, dense }: { columns: readonly string[]; dense?: boolean }) {
  return (
    <thead className="bg-gray-50">
      <tr>
        {columns.map((h) => (
          <th key={h} scope="col" className={cn(dense ? 'px-4' : 'px-6', 'py-3 text-left text-xs font-medium tracking-wider text-gray-500 uppercase')}>
            {h}
          </th>
        ))}
      </tr>
    </thead>
  );
}
