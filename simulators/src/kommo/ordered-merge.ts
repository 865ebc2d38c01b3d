// Paging over contacts that are computed, not stored. The contacts visible to a list request are
// the merge of two ordered sequences:
//   - BaseRange: a contiguous id range whose timestamps rise with the id, minus a small sorted
//     list of "exceptions" (contacts deleted or moved elsewhere by an update); random access costs
//     O(log^2) and needs no memory per contact;
//   - a small explicit list of updated contacts.
// Finding page k therefore costs O(log) probes plus the page itself, even for 1,000,000 contacts.

export function lowerBound(sorted: readonly number[], x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function upperBound(sorted: readonly number[], x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Ids a..b (inclusive) without the ids in `exceptions` (sorted ascending). */
export class BaseRange {
  readonly length: number;
  private readonly eLo: number;

  constructor(
    private readonly a: number,
    private readonly b: number,
    private readonly exceptions: readonly number[],
  ) {
    this.eLo = lowerBound(exceptions, a);
    this.length = b >= a ? b - a + 1 - (upperBound(exceptions, b) - this.eLo) : 0;
  }

  /** The i-th id (0-based). Binary search on "ids kept up to id", which never decreases. */
  at(i: number): number {
    const { a, exceptions, eLo } = this;
    let lo = a + i;
    let hi = Math.min(this.b, lo + (exceptions.length - eLo));
    while (lo < hi) {
      const mid = lo + Math.floor((hi - lo) / 2);
      const kept = mid - a + 1 - (upperBound(exceptions, mid) - eLo);
      if (kept >= i + 1) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  *from(i: number): Generator<number> {
    if (i >= this.length) return;
    const ex = this.exceptions;
    let id = this.at(i);
    let e = upperBound(ex, id);
    for (let n = i; n < this.length; n++) {
      yield id;
      id++;
      while (e < ex.length && ex[e] < id) e++;
      while (e < ex.length && ex[e] === id) {
        id++;
        e++;
      }
    }
  }
}

export type Compare = (x: number, y: number) => number;

/**
 * How many of the first k merged items come from each side: returns [i, j] with i + j = k,
 * i taken from `base` and j from `extra`.
 */
function split(base: BaseRange, extra: readonly number[], cmp: Compare, k: number): [number, number] {
  let lo = Math.max(0, k - base.length);
  let hi = Math.min(k, extra.length);
  while (lo <= hi) {
    const j = (lo + hi) >>> 1;
    const i = k - j;
    if (j > 0 && i < base.length && cmp(extra[j - 1], base.at(i)) > 0) hi = j - 1;
    else if (i > 0 && j < extra.length && cmp(base.at(i - 1), extra[j]) > 0) lo = j + 1;
    else return [i, j];
  }
  return [k - lo, lo];
}

/** The merged sequence from position k on, ascending by `cmp`. The two sides never share an id. */
export function* mergedFrom(base: BaseRange, extra: readonly number[], cmp: Compare, k: number): Generator<number> {
  const [i, firstExtra] = split(base, extra, cmp, k);
  let j = firstExtra;
  const it = base.from(i);
  let next = it.next();
  for (;;) {
    const hasBase = !next.done;
    const hasExtra = j < extra.length;
    if (!hasBase && !hasExtra) return;
    if (hasBase && (!hasExtra || cmp(next.value as number, extra[j]) < 0)) {
      yield next.value as number;
      next = it.next();
    } else {
      yield extra[j++];
    }
  }
}

/** Items [start, end) of the merged sequence. */
export function mergedSlice(base: BaseRange, extra: readonly number[], cmp: Compare, start: number, end: number): number[] {
  const out: number[] = [];
  if (end <= start) return out;
  for (const id of mergedFrom(base, extra, cmp, start)) {
    out.push(id);
    if (out.length >= end - start) break;
  }
  return out;
}
