import type { ReactNode } from 'react';
import { cn } from './cn';

/**
 * A table's wide layout inside a box that scrolls sideways on its own. The box is focusable and
 * named, so the keyboard can scroll it and a screen reader says what it holds.
 */
export function TableScroll({ label, children, className }: { label: string; children: ReactNode; className?: string }) {
  return (
    <div role="region" aria-label={label} tabIndex={0} className={cn('overflow-x-auto', className)}>
      {children}
    </div>
  );
}

/** A table's phone layout: one card per row, each value with its column name (as list views of admin consoles do). */
export function StackedList({ label, children }: { label: string; children: ReactNode }) {
  return (
    <ul aria-label={label} className="divide-y divide-gray-200">
      {children}
    </ul>
  );
}

export function StackedItem({
  title,
  aside,
  fields,
  actions,
  testId,
}: {
  title: ReactNode;
  aside?: ReactNode;
  fields: Array<{ label: string; value: ReactNode; wide?: boolean }>;
  actions?: ReactNode;
  testId?: string;
}) {
  return (
    <li className="space-y-3 px-4 py-4" data-testid={testId}>
      <div className="flex items-start justify-between gap-3">
        <div className="min-w-0 font-medium break-words text-gray-900">{title}</div>
        {aside && <div className="shrink-0">{aside}</div>}
      </div>
      {fields.length > 0 && (
        <dl className="grid grid-cols-2 gap-x-4 gap-y-2 text-sm">
          {fields.map((f) => (
            <div key={f.label} className={cn('min-w-0', f.wide && 'col-span-2')}>
              <dt className="text-xs text-gray-500">{f.label}</dt>
              <dd className="break-words text-gray-900">{f.value}</dd>
            </div>
          ))}
        </dl>
      )}
      {actions && <div className="flex flex-wrap items-center gap-2">{actions}</div>}
    </li>
  );
}
