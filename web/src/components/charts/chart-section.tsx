import { useId, type ReactNode } from 'react';
import { Card } from '@/components/ui/card';

/**
 * One chart as the screen shows it: a heading, a short text summary, the drawing (hidden from
 * screen readers, which read the summary and the table instead) and the same figures as a table
 * under "Ver datos".
 */
export function ChartSection({
  title,
  summary,
  table,
  children,
  actions,
  testId,
  chartHeight,
  headingLevel = 2,
}: {
  title: string;
  /** One or two sentences with what the chart shows, read by everyone. */
  summary: ReactNode;
  /** The chart's data as a table (ChartTable). */
  table: ReactNode;
  /** The drawing. */
  children: ReactNode;
  actions?: ReactNode;
  testId?: string;
  /** The drawing's height in pixels when it depends on the data (default: 16rem, 18rem from `sm`). */
  chartHeight?: number;
  /** 3 when the charts sit under a heading of their own. */
  headingLevel?: 2 | 3;
}) {
  const headingId = useId();
  const Heading = headingLevel === 3 ? 'h3' : 'h2';
  return (
    <Card className="p-4 sm:p-6" aria-labelledby={headingId} role="region" data-testid={testId}>
      <div className="mb-2 flex flex-wrap items-start justify-between gap-3">
        <Heading id={headingId} className="text-lg font-semibold text-gray-900">
          {title}
        </Heading>
        {actions}
      </div>
      <div className="mb-4 text-sm text-gray-600">{summary}</div>
      {/* The drawing is for the eye: inert keeps the chart library's focusable surface out of the tab order too. */}
      <div aria-hidden="true" inert className={chartHeight === undefined ? 'h-64 w-full sm:h-72' : 'w-full'} style={chartHeight === undefined ? undefined : { height: chartHeight }}>
        {children}
      </div>
      <details className="mt-4 text-sm">
        <summary className="flex min-h-11 cursor-pointer items-center font-medium text-blue-700 hover:text-blue-900 sm:min-h-0">Ver datos</summary>
        <div className="mt-2 max-h-80 overflow-auto rounded-md border border-gray-200" tabIndex={0} role="group" aria-label={`Datos: ${title}`}>
          {table}
        </div>
      </details>
    </Card>
  );
}

/** The data behind a chart: a plain table with a caption. */
export function ChartTable({ caption, columns, rows }: { caption: string; columns: string[]; rows: ReactNode[][] }) {
  return (
    <table className="min-w-full divide-y divide-gray-200 text-left">
      <caption className="sr-only">{caption}</caption>
      <thead className="sticky top-0 bg-gray-50">
        <tr>
          {columns.map((c, i) => (
            <th key={c} scope="col" className={`px-3 py-2 text-xs font-medium text-gray-600 ${i ? 'text-right' : ''}`}>
              {c}
            </th>
          ))}
        </tr>
      </thead>
      <tbody className="divide-y divide-gray-100 bg-white">
        {rows.map((row, r) => (
          <tr key={r}>
            {row.map((cell, i) =>
              i === 0 ? (
                <th key={i} scope="row" className="px-3 py-1.5 font-normal whitespace-nowrap text-gray-900">
                  {cell}
                </th>
              ) : (
                <td key={i} className="px-3 py-1.5 text-right whitespace-nowrap text-gray-700 tabular-nums">
                  {cell}
                </td>
              ),
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
