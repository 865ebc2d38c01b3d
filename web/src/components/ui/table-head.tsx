import { cn } from './cn';

/** The header row every list table of the console shares. */
export function TableHead({ columns, dense, nowrap }: { columns: readonly string[]; dense?: boolean; nowrap?: boolean }) {
  return (
    <thead className="bg-gray-50">
      <tr>
        {columns.map((h) => (
          <th key={h} scope="col" className={cn(dense ? 'px-4' : 'px-6', nowrap && 'whitespace-nowrap', 'py-3 text-left text-xs font-medium tracking-wider text-gray-500 uppercase')}>
            {h}
          </th>
        ))}
      </tr>
    </thead>
  );
}
