/** "HH:MM" of `now + offsetMinutes` in an IANA zone (24 h clock), for sending-hours windows. */
export function wallClock(timeZone: string, offsetMinutes = 0, now = Date.now()): string {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(
    new Date(now + offsetMinutes * 60_000),
  );
  const get = (type: string) => parts.find((p) => p.type === type)!.value;
  return `${get('hour')}:${get('minute')}`;
}

/** Polls `read` until `done` holds on its value; on timeout returns the last value (for a readable assertion). */
export async function settle<T>(read: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  let v = await read();
  while (!done(v) && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 250));
    v = await read();
  }
  return v;
}
