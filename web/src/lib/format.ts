export function formatDate(value: string | null | undefined): string {
  if (!value) return '-';
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? '-' : d.toLocaleDateString('es-ES');
}

/**
 * The zone a time is shown in, as the browser names it for that moment: "GMT-3", "CET" or
 * "CEST", "UTC". A time of day means nothing to an operator whose recipients live elsewhere
 * unless it says its zone.
 */
export function timeZoneLabel(at: Date = new Date(), timeZone?: string): string {
  try {
    const part = new Intl.DateTimeFormat('es-ES', { timeZone, timeZoneName: 'short' }).formatToParts(at).find((p) => p.type === 'timeZoneName');
    return part?.value ?? 'UTC';
  } catch {
    return 'UTC';
  }
}

/** "26/11/2026, 10:24:05 (GMT-3)": a moment in the browser's time, with its zone. */
export function formatDateTime(value: string | null | undefined): string {
  if (!value) return '-';
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? '-' : `${d.toLocaleString('es-ES')} (${timeZoneLabel(d)})`;
}

/**
 * "26/11 10:24" (the year too when it is not this one), without the zone: for table cells whose
 * column header names it (`timeZoneLabel`).
 */
export function formatShortDateTime(value: string | null | undefined, now = new Date()): string {
  if (!value) return '-';
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return '-';
  const day = d.toLocaleDateString('es-ES', { day: '2-digit', month: '2-digit', ...(d.getFullYear() === now.getFullYear() ? {} : { year: 'numeric' }) });
  const time = d.toLocaleTimeString('es-ES', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
  return `${day} ${time}`;
}

export const formatNumber = (n: number | null | undefined) => (n ?? 0).toLocaleString('es-ES');
