/**
 * Slows down password guessing: after MAX_FAILURES failed logins for one email, or from
 * one IP, within WINDOW_MS, further attempts are refused until the window passes.
 * Kept in memory: each API process throttles on its own, which bounds guessing per process.
 */
const WINDOW_MS = 15 * 60 * 1000;
const MAX_FAILURES_PER_EMAIL = 5;
const MAX_FAILURES_PER_IP = 20;

export function createLoginThrottle(now: () => number = Date.now) {
  const failures = new Map<string, number[]>();

  const recent = (key: string) => {
    const cutoff = now() - WINDOW_MS;
    const list = (failures.get(key) ?? []).filter((t) => t > cutoff);
    if (list.length) failures.set(key, list);
    else failures.delete(key);
    return list;
  };

  return {
    isBlocked(email: string, ip: string): boolean {
      return (
        recent(`e:${email.toLowerCase()}`).length >= MAX_FAILURES_PER_EMAIL ||
        recent(`i:${ip}`).length >= MAX_FAILURES_PER_IP
      );
    },
    recordFailure(email: string, ip: string) {
      for (const key of [`e:${email.toLowerCase()}`, `i:${ip}`]) failures.set(key, [...recent(key), now()]);
    },
    recordSuccess(email: string) {
      failures.delete(`e:${email.toLowerCase()}`);
    },
  };
}
export type LoginThrottle = ReturnType<typeof createLoginThrottle>;
