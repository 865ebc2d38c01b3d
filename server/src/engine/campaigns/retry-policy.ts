/**
 * When to try a recipient again after a transient error, and when to give up. `attempts`
 * counts requests made so far for this recipient, the failed one included.
 */
const PAIR_LIMIT = 131056;
const THROUGHPUT = 130429;
const MAINTENANCE = 131057;
const APP_RATE_LIMITS = new Set([4, 80007]);

export interface RetryDecision {
  retry: boolean;
  delayMs: number;
}

export function retryDecision(code: number | null, attempts: number): RetryDecision {
  const jitter = Math.random() * 250;
  if (code === PAIR_LIMIT) {
    // Meta: wait 4^X seconds, X = 0, 1, 2… per failure; other recipients are unaffected.
    return { retry: attempts <= 6, delayMs: 4 ** (attempts - 1) * 1000 + jitter };
  }
  if (code === THROUGHPUT) return { retry: attempts <= 10, delayMs: 1000 + jitter };
  // The number is being moved to a higher throughput (up to a minute, Meta says): the
  // recipient waits it out; the sender also holds the whole number (sender.ts).
  if (code === MAINTENANCE) return { retry: attempts <= 6, delayMs: 60_000 + jitter };
  if (code !== null && APP_RATE_LIMITS.has(code)) return { retry: attempts <= 6, delayMs: 30_000 * attempts + jitter };
  // 5xx, 131000, 131016, connection refused: exponential, capped at a minute.
  return { retry: attempts <= 5, delayMs: Math.min(60_000, 2 ** (attempts - 1) * 1000) + jitter };
}

export { MAINTENANCE, PAIR_LIMIT, THROUGHPUT };
