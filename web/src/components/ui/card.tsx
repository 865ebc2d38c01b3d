import type { HTMLAttributes, ReactNode } from 'react';
import { cn } from './cn';

export function Card({ className, ...props }: HTMLAttributes<HTMLDivElement>) {
  return <div className={cn('rounded-lg border border-gray-200 bg-white shadow-sm', className)} {...props} />;
}

export function StatCard({
  title,
  value,
  icon,
  tone = 'blue',
  note,
  testId,
}: {
  title: string;
  value: ReactNode;
  icon?: ReactNode;
  tone?: 'blue' | 'green' | 'yellow' | 'purple' | 'gray';
  /** A line under the value that says what it holds ("Completada · 63 enviados de 81"). */
  note?: ReactNode;
  testId?: string;
}) {
  const tones = {
    blue: 'bg-blue-100 text-blue-600',
    green: 'bg-green-100 text-green-600',
    yellow: 'bg-yellow-100 text-yellow-600',
    purple: 'bg-purple-100 text-purple-600',
    gray: 'bg-gray-100 text-gray-600',
  };
  return (
    <Card className="flex items-center gap-4 p-5" data-testid={testId}>
      {icon && <div className={cn('rounded-lg p-3', tones[tone])}>{icon}</div>}
      <div className="min-w-0">
        <p className="text-sm text-gray-500">{title}</p>
        <p className="text-2xl font-semibold text-gray-900">{value}</p>
        {note && <p className="mt-0.5 text-xs text-gray-600">{note}</p>}
      </div>
    </Card>
  );
}
