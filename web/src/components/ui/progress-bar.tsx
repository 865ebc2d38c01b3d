import { cn } from './cn';

/** A part of the track after the main fill, in percent of the whole (outcomes that are not progress). */
export interface BarSegment {
  value: number;
  className: string;
}

/**
 * `label` names the bar for assistive technology; `valueText` says what the percentage counts
 * («2.036 de 3.000»). `segments` follow the fill in their own colours and never count as `value`.
 */
export function ProgressBar({
  value,
  label,
  valueText,
  className,
  barClassName,
  segments = [],
}: {
  value: number;
  label: string;
  valueText?: string;
  className?: string;
  barClassName?: string;
  segments?: BarSegment[];
}) {
  const pct = Math.max(0, Math.min(100, value));
  let room = 100 - pct;
  const parts = segments.map((s) => {
    const width = Math.max(0, Math.min(room, s.value));
    room -= width;
    return { ...s, width };
  });
  return (
    <div
      role="progressbar"
      aria-label={label}
      aria-valuenow={Math.round(pct)}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuetext={valueText}
      className={cn('flex h-2 w-full overflow-hidden rounded-full bg-gray-200', className)}
    >
      <div className={cn('h-full bg-blue-600 transition-all', barClassName)} style={{ width: `${pct}%` }} />
      {parts.map((p, i) =>
        p.width > 0 ? <div key={i} data-segment className={cn('h-full transition-all', p.className)} style={{ width: `${p.width}%` }} /> : null,
      )}
    </div>
  );
}
