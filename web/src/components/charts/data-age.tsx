import { useEffect, useState } from 'react';

/** "hace 12 s", "hace 3 min", "hace 2 h": how long ago `at` was, from `now`. */
export function ageLabel(at: string, now: number): string {
  const s = Math.max(0, Math.round((now - Date.parse(at)) / 1000));
  if (s < 60) return `hace ${s} s`;
  const min = Math.floor(s / 60);
  if (min < 60) return `hace ${min} min`;
  return `hace ${Math.floor(min / 60)} h`;
}

/**
 * The charts' delay: they are read from rollups a background job brings up to date every few
 * seconds (the API's `folded_at`), so the screen says how old they are, ticking while shown.
 */
export function DataAge({ foldedAt }: { foldedAt: string | null }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, []);
  if (!foldedAt) return null;
  return (
    <p className="text-xs text-gray-500" data-testid="data-age" title={new Date(foldedAt).toLocaleString('es-AR')}>
      Datos actualizados {ageLabel(foldedAt, now)}
    </p>
  );
}
