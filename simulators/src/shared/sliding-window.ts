// Counts events in a sliding time window with O(1) amortised cost per event, so rate checks and
// "most requests in any 1 s" statistics stay cheap at thousands of events per second.

export class SlidingWindow {
  private times: number[] = [];
  private head = 0;
  /** Largest number of events ever seen inside one window. */
  max = 0;

  constructor(readonly windowMs: number) {}

  /**
   * Events in (now - windowMs, now]: what the receiver counts when a request arrives at `now`.
   * Events timed after `now` (arrived later, accepted earlier) are not in that window.
   */
  count(now: number): number {
    this.evict(now);
    return this.inWindowEndingAt(now);
  }

  /**
   * Records an event at `now` and returns the count of the window ending at it. An event may
   * come a little out of order (timed at its arrival, accepted after a later one): it is kept in
   * time order, and the windows of the later events it now falls in count it too (`max`).
   */
  add(now: number): number {
    this.evict(now);
    const at = insertSorted(this.times, now, this.head);
    const n = this.inWindowEndingAt(now);
    let most = n;
    for (let j = at + 1; j < this.times.length && this.times[j]! - now < this.windowMs; j++) {
      most = Math.max(most, this.inWindowEndingAt(this.times[j]!));
    }
    if (most > this.max) this.max = most;
    return n;
  }

  clear(): void {
    this.times = [];
    this.head = 0;
    this.max = 0;
  }

  private inWindowEndingAt(t: number): number {
    return upperBound(this.times, t, this.head) - upperBound(this.times, t - this.windowMs, this.head);
  }

  /** Forgets events too old for any window an event timed up to one window late can still need. */
  private evict(now: number): void {
    const times = this.times;
    while (this.head < times.length && now - times[this.head]! >= 2 * this.windowMs) this.head++;
    // Compact now and then so the array does not grow without bound.
    if (this.head > 1024 && this.head * 2 > times.length) {
      this.times = times.slice(this.head);
      this.head = 0;
    }
  }
}

/** First index (from `from` on) of ascending `times` whose time is above `t`. */
function upperBound(times: readonly number[], t: number, from: number): number {
  let lo = from;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (times[mid]! <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Inserts `t` into ascending `times` (from index `from` on), searching from the end: times come
 * in order, or a little late (a send timed at its arrival, accepted after a later one). Returns
 * the index it took.
 */
export function insertSorted(times: number[], t: number, from = 0): number {
  let i = times.length;
  while (i > from && times[i - 1]! > t) i--;
  if (i === times.length) times.push(t);
  else times.splice(i, 0, t);
  return i;
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
