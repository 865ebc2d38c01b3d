/**
 * "Obtener Campos" sends the typed credentials to Kommo, so each call is a request from this
 * server's address: a per-user budget keeps one tenant from driving traffic that could get the
 * shared address blocked by Kommo. Per process, like the Kommo limiter.
 */
export interface Throttle {
  /** True when the call may go ahead (and counts it). */
  take(userId: number): boolean;
}

export function createThrottle(limit: number, windowMs: number, now: () => number = () => performance.now()): Throttle {
  const windows = new Map<number, { start: number; used: number }>();
  return {
    take(userId) {
      const t = now();
      if (windows.size > 10_000) {
        for (const [id, w] of windows) if (t - w.start >= windowMs) windows.delete(id);
      }
      let w = windows.get(userId);
      if (!w || t - w.start >= windowMs) {
        w = { start: t, used: 0 };
        windows.set(userId, w);
      }
      if (w.used >= limit) return false;
      w.used++;
      return true;
    },
  };
}
