/**
 * Counts events per key in a sliding window, in memory. The map is bounded: expired keys are
 * swept as new ones arrive, and past `maxKeys` the oldest key is dropped, so a stream of new
 * addresses or e-mails cannot grow it without end. Each process limits on its own (the webhook
 * verify-token guard); limits that several API processes must share use db/rate-counters.ts.
 */
export interface RateLimiterOptions {
  limit: number;
  windowMs: number;
  maxKeys?: number;
  now?: () => number;
}

export function createRateLimiter({ limit, windowMs, maxKeys = 10_000, now = Date.now }: RateLimiterOptions) {
  const hits = new Map<string, number[]>();
  let lastSweep = now();

  const recent = (key: string) => {
    const cutoff = now() - windowMs;
    const list = hits.get(key);
    if (!list) return [];
    const kept = list.filter((t) => t > cutoff);
    if (!kept.length) hits.delete(key);
    else if (kept.length !== list.length) hits.set(key, kept);
    return kept;
  };

  const sweep = () => {
    if (now() - lastSweep < windowMs) return;
    lastSweep = now();
    for (const key of [...hits.keys()]) recent(key);
  };

  // Drops a tenth at once with one iterator: deleting one key per insert would rescan the
  // map's deleted slots every time.
  const evictOldest = () => {
    const target = Math.floor(maxKeys * 0.9);
    for (const key of hits.keys()) {
      if (hits.size <= target) break;
      hits.delete(key);
    }
  };

  return {
    /** True once the key has reached the limit within the window. */
    isLimited: (key: string) => recent(key).length >= limit,
    count: (key: string) => recent(key).length,
    hit(key: string) {
      sweep();
      const list = [...recent(key), now()].slice(-limit);
      // Re-inserting moves the key to the end, so eviction drops the least recently hit.
      hits.delete(key);
      hits.set(key, list);
      if (hits.size > maxKeys) evictOldest();
    },
    /** Hits the key and says whether this hit went over the limit. */
    take(key: string): boolean {
      if (recent(key).length >= limit) return false;
      this.hit(key);
      return true;
    },
    reset: (key: string) => void hits.delete(key),
    get size() {
      return hits.size;
    },
  };
}
export type RateLimiter = ReturnType<typeof createRateLimiter>;
