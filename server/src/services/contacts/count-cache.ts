import type { ContactFilterInput } from '@masivo/contract/contact-filter';
import type { Db } from '../../db/client';
import { estimateCount } from './count-estimate';
import { contactDataVersion, createVersionedCache } from './data-version';
import { countContacts } from './filter-engine';
import { filterKey } from './recipient-count-cache';

/** What the screen gets: the exact count, or an estimate flagged as one while the exact one runs. */
export interface ScreenCount {
  count: number;
  approximate: boolean;
}

/** Time the screen waits for an exact count before it is given an estimate (the screen's count answers in p95 < 100 ms). */
export const COUNT_BUDGET_MS = 50;
/** How long a count may take before its estimate is started beside it. */
const ESTIMATE_AFTER_MS = 10;
/** Exact counts left running after their answer went out; past this, asks wait for theirs. */
const MAX_BACKGROUND_COUNTS = 4;

/** The promise's value if it settles within `ms`, else null (the promise runs on). */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Filter counts (the contacts screen total, /count, the campaign form's recipient box), kept per
 * account, filter and data version. The screen asks the same few questions again and again while
 * the data stands still; a sync or any other write bumps the version and the next ask recounts.
 *
 * A recount that outlasts the budget answers with an estimate (count-estimate.ts) and keeps
 * running; its exact figure lands in the cache for the next ask, and concurrent asks share it.
 * The audience freeze never reads this: it selects the rows themselves, so its figure is exact.
 */
export interface CountOptions {
  maxEntries?: number;
  budgetMs?: number;
  /**
   * Off on PGlite: it runs every statement on this process's one thread, one at a time, so an
   * estimate could only start after the exact count it would stand in for.
   */
  estimates?: boolean;
}

export function createCountCache(db: Db, opts: CountOptions = {}) {
  const cache = createVersionedCache<number>(opts.maxEntries ?? 5_000);
  const budgetMs = opts.budgetMs ?? COUNT_BUDGET_MS;
  const running = new Map<string, Promise<number>>();

  /** The exact count, computed at most once per account, filter and version at a time. */
  async function exact(userId: number, accountId: number, filter: ContactFilterInput): Promise<{ pending: Promise<number> }> {
    // Read before counting: the count then reflects this version or a newer one, never an older one.
    const version = await contactDataVersion(db, accountId);
    const key = `${userId}:${filterKey(filter)}`;
    const id = `${accountId}:${version}:${key}`;
    let pending = running.get(id);
    if (!pending) {
      pending = cache.get(accountId, version, key, () => countContacts(db, { userId, accountId, filter }));
      running.set(id, pending);
      const forget = () => running.delete(id);
      pending.then(forget, forget);
    }
    return { pending };
  }

  return {
    /** Always exact (waits as long as it takes). */
    async exact(userId: number, accountId: number, filter: ContactFilterInput): Promise<number> {
      return (await exact(userId, accountId, filter)).pending;
    },

    /** Exact when it is known within the budget, else an estimate flagged `approximate`. */
    async count(userId: number, accountId: number, filter: ContactFilterInput): Promise<ScreenCount> {
      const { pending } = await exact(userId, accountId, filter);
      const exactAnswer = pending.then((n) => ({ count: n, approximate: false }));
      if (opts.estimates === false) return exactAnswer;
      // Cached figures and look-ups answer at once; anything slower gets its estimate started
      // early, so the estimate is ready when the budget runs out.
      const quick = await within(exactAnswer, ESTIMATE_AFTER_MS);
      if (quick) return quick;
      if (running.size > MAX_BACKGROUND_COUNTS) return exactAnswer;
      // The exact count goes on: a failure there is reported to whoever asks next.
      pending.catch(() => {});
      const estimate = estimateCount(db, { userId, accountId, filter }).catch(() => null);
      const onTime = await within(exactAnswer, Math.max(0, budgetMs - ESTIMATE_AFTER_MS));
      if (onTime) return onTime;
      // Whichever comes first; an estimate that could not be made defers to the exact count.
      return Promise.race([exactAnswer, estimate.then((n) => (n === null ? exactAnswer : { count: n, approximate: true }))]);
    },
    clear: () => cache.clear(),
  };
}
