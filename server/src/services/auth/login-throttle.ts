import type { Queryable } from '../../db/sql';
import { createRateCounter } from '../../db/rate-counters';

/**
 * Slows down password guessing without handing anyone a lockout tool:
 * - per (address, account): 5 failures in 15 minutes refuse further attempts for that pair
 *   only, so the owner signing in from their own address is never blocked by someone else;
 * - per address: 30 failures in 15 minutes refuse that address (spraying many accounts).
 * There is deliberately no per-account limit across addresses: it would let anyone lock a
 * known user out. Distributed guessing is bounded by addresses × 5 per 15 minutes and by the
 * argon2 cost of each attempt. The address is the socket address unless TRUST_PROXY names the
 * proxies allowed to set it. Counted in the database (rate_counters), so every API process of a
 * deployment shares the same counts.
 */
const WINDOW_MS = 15 * 60 * 1000;
const MAX_FAILURES_PER_PAIR = 5;
const MAX_FAILURES_PER_IP = 30;

export function createLoginThrottle(db: Queryable) {
  const byPair = createRateCounter(db, { name: 'login-pair', limit: MAX_FAILURES_PER_PAIR, windowMs: WINDOW_MS });
  const byIp = createRateCounter(db, { name: 'login-ip', limit: MAX_FAILURES_PER_IP, windowMs: WINDOW_MS });
  const pair = (email: string, ip: string) => `${ip}|${email.trim().toLowerCase()}`;

  return {
    isBlocked: async (email: string, ip: string) => (await byIp.isLimited(ip)) || (await byPair.isLimited(pair(email, ip))),
    async recordFailure(email: string, ip: string) {
      await byIp.hit(ip);
      await byPair.hit(pair(email, ip));
    },
    recordSuccess: (email: string, ip: string) => byPair.reset(pair(email, ip)),
  };
}
export type LoginThrottle = ReturnType<typeof createLoginThrottle>;
