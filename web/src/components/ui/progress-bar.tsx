import { cn } from './cn';

export function ProgressBar({ value, className, barClassName }: { value: number; className?: string; barClassName?: string }) {
  const pct = Math.max(0, Math.min(100, value));
  return (
    <div role="progressbar" aria-valuenow={Math.round(pct)} aria-valuemin={0} aria-valuemax={100} className={cn('h-2 w-full overflow-hidden rounded-full bg-gray-200', className)}>
      <div className={cn('h-full rounded-full bg-blue-600 transition-all', barClassName)} style={{ width: `${pct}%` }} />
    </div>
  );
}
