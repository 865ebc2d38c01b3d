import { cn } from './cn';

/** `label` names the bar for assistive technology; `valueText` says what the percentage counts («2.036 de 3.000»). */
export function ProgressBar({ value, label, valueText, className, barClassName }: { value: number; label: string; valueText?: string; className?: string; barClassName?: string }) {
  const pct = Math.max(0, Math.min(100, value));
  return (
    <div
      role="progressbar"
      aria-label={label}
      aria-valuenow={Math.round(pct)}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuetext={valueText}
      className={cn('h-2 w-full overflow-hidden rounded-full bg-gray-200', className)}
    >
      <div className={cn('h-full rounded-full bg-blue-600 transition-all', barClassName)} style={{ width: `${pct}%` }} />
    </div>
  );
}
