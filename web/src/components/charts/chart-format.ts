/** The browser's IANA zone (the server buckets hours and days in it); UTC when unknown. */
export function browserTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}

/** A share as a Spanish percentage ("97,5 %"), or "–" when there is nothing to divide. */
export function formatPercent(value: number | null): string {
  if (value === null) return '–';
  return `${(value * 100).toLocaleString('es-ES', { maximumFractionDigits: 1 })} %`;
}

/** How a timeline bucket reads in a title: "por minuto", "por 5 minutos", "por hora", "por día". */
export function bucketLabel(minutes: number): string {
  if (minutes === 1) return 'por minuto';
  if (minutes < 60) return `por ${minutes} minutos`;
  if (minutes === 60) return 'por hora';
  if (minutes < 1440) return `por ${minutes / 60} horas`;
  if (minutes === 1440) return 'por día';
  return `por ${minutes / 1440} días`;
}

/** The series colours, shared by every chart and matching the detail screen's counts (delivered green, read purple, failed red). */
export const SERIES_COLORS = {
  attempted: '#64748b',
  sent: '#2563eb',
  delivered: '#16a34a',
  read: '#9333ea',
  replied: '#0891b2',
  failed: '#dc2626',
} as const;
