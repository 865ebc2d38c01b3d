// Counts events in a sliding time window with O(1) amortised cost per event, so rate checks and
// "most requests in any 1 s" statistics stay cheap at thousands of events per second.

export class SlidingWindow {
  private times: number[] = [];
  private head = 0;
  /** Largest number of events ever seen inside one window. */
  max = 0;

  constructor(readonly windowMs: number) {}

  /** Events in (now - windowMs, now]. */
  count(now: number): number {
    this.evict(now);
    return this.times.length - this.head;
  }

  /**
   * Records an event at `now` and returns the count including it. An event may come a little
   * out of order (timed at its arrival, accepted after a later one): it is kept in time order.
   */
  add(now: number): number {
    this.evict(now);
    insertSorted(this.times, now, this.head);
    const n = this.times.length - this.head;
    if (n > this.max) this.max = n;
    return n;
  }

  clear(): void {
    this.times = [];
    this.head = 0;
    this.max = 0;
  }

  private evict(now: number): void {
    const times = this.times;
    while (this.head < times.length && now - times[this.head] >= this.windowMs) this.head++;
    // Compact now and then so the array does not grow without bound.
    if (this.head > 1024 && this.head * 2 > times.length) {
      this.times = times.slice(this.head);
      this.head = 0;
    }
  }
}

/**
 * Inserts `t` into ascending `times` (from index `from` on), searching from the end: times come
 * in order, or a little late (a send timed at its arrival, accepted after a later one).
 */
export function insertSorted(times: number[], t: number, from = 0): void {
  let i = times.length;
  while (i > from && times[i - 1]! > t) i--;
  if (i === times.length) times.push(t);
  else times.splice(i, 0, t);
}

/** Largest number of sorted times inside any half-open window [t, t + windowMs). */
export function maxInWindow(sortedTimes: readonly number[], windowMs: number): number {
  let best = 0;
  let start = 0;
  for (let end = 0; end < sortedTimes.length; end++) {
    while (sortedTimes[end] - sortedTimes[start] >= windowMs) start++;
    if (end - start + 1 > best) best = end - start + 1;
  }
  return best;
}
