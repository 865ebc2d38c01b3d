import { createRateLimiter } from './rate-limiter';

/**
 * Slows down password guessing without handing anyone a lockout tool:
 * - per (address, account): 5 failures in 15 minutes refuse further attempts for that pair
 *   only, so the owner signing in from their own address is never blocked by someone else;
 * - per address: 30 failures in 15 minutes refuse that address (spraying many accounts).
 * There is deliberately no per-account limit across addresses: it would let anyone lock a
 * known user out. Distributed guessing is bounded by addresses × 5 per 15 minutes and by the
 * argon2 cost of each attempt. The address is the socket address unless TRUST_PROXY names the
 * proxies allowed to set it. Kept in memory and bounded; each API process throttles on its own.
 */
const WINDOW_MS = 15 * 60 * 1000;
const MAX_FAILURES_PER_PAIR = 5;
const MAX_FAILURES_PER_IP = 30;

export function createLoginThrottle(now: () => number = Date.now) {
  const byPair = createRateLimiter({ limit: MAX_FAILURES_PER_PAIR, windowMs: WINDOW_MS, maxKeys: 50_000, now });
  const byIp = createRateLimiter({ limit: MAX_FAILURES_PER_IP, windowMs: WINDOW_MS, maxKeys: 20_000, now });
  const pair = (email: string, ip: string) => `${ip}|${email.trim().toLowerCase()}`;

  return {
    isBlocked: (email: string, ip: string) => byIp.isLimited(ip) || byPair.isLimited(pair(email, ip)),
    recordFailure(email: string, ip: string) {
      byIp.hit(ip);
      byPair.hit(pair(email, ip));
    },
    recordSuccess(email: string, ip: string) {
      byPair.reset(pair(email, ip));
    },
    /** For tests and monitoring: how many keys are held. */
    get size() {
      return byPair.size + byIp.size;
    },
  };
}
export type LoginThrottle = ReturnType<typeof createLoginThrottle>;
