const pad = (n: number) => String(n).padStart(2, '0');

/**
 * A datetime-local value ("2025-06-01T10:30", the browser's local time) as an ISO
 * timestamp with the browser's UTC offset ("2025-06-01T10:30:00-03:00"), so the server
 * stores the instant the operator meant. Empty or invalid → null (a draft).
 */
export function localInputToIso(value: string): string | null {
  if (!value) return null;
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return null;
  const offset = -d.getTimezoneOffset();
  const sign = offset >= 0 ? '+' : '-';
  const abs = Math.abs(offset);
  return (
    `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}` +
    `T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}` +
    `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
  );
}

/** Now as a datetime-local value: the earliest time the picker offers. */
export function nowAsLocalInput(now = new Date()): string {
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}T${pad(now.getHours())}:${pad(now.getMinutes())}`;
}

export const isFutureLocalInput = (value: string, now = Date.now()) => {
  const iso = localInputToIso(value);
  return iso !== null && Date.parse(iso) > now;
};

/** An ISO timestamp as the picker's value in the browser's local time ("2025-06-01T10:30"). */
export function isoToLocalInput(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : nowAsLocalInput(d);
}
