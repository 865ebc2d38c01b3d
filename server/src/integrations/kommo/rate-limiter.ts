import { sql } from 'drizzle-orm';
import { rowsOf, type Queryable } from '../../db/sql';

/**
 * Kommo allows a fixed number of requests in any one-second window and blocks an account
 * (403 on everything) after repeated 429s. Kommo counts a request when it arrives, which is
 * some time between our send and its answer; a slow connect can make an early request arrive
 * late, so the window of each request is anchored on its answer, the latest it can have
 * arrived. A new request starts only when `perSecond` earlier ones are all more than a window
 * old by that measure.
 */
export interface RateLimiter {
  /** Resolves when a request may start; call the returned function once its answer (or failure) is in. */
  acquire(signal?: AbortSignal, opts?: { priority?: 'high' }): Promise<() => void>;
  /** After a 429: nobody starts before `ms` from now. */
  pause(ms: number): void;
}

const MARGIN_MS = 5;

/** Monotonic: a wall-clock step must neither stall the limiter nor let it burst. */
const now = () => performance.now();

interface Slot {
  /** When the answer came; until then the slot blocks whoever would follow it. */
  doneAt: number | null;
  done: Promise<void>;
}

export function createRateLimiter(perSecond: number, marginMs = MARGIN_MS): RateLimiter {
  // A fractional rate (e.g. 0.5) becomes one request per longer window.
  const slots = Math.max(1, Math.floor(perSecond));
  const windowMs = (1000 * slots) / perSecond + marginMs;
  const recent: Slot[] = [];
  let pausedUntil = 0;
  let queue: Promise<unknown> = Promise.resolve();

  async function waitTurn(signal?: AbortSignal): Promise<() => void> {
    for (;;) {
      signal?.throwIfAborted();
      const anchor = recent.length >= slots ? recent[recent.length - slots] : null;
      if (anchor && anchor.doneAt === null) {
        await anchor.done;
        continue;
      }
      const wait = Math.max(pausedUntil, anchor ? anchor.doneAt! + windowMs : 0) - now();
      if (wait <= 0) break;
      await sleep(wait, signal);
    }
    let finish!: () => void;
    const slot: Slot = { doneAt: null, done: new Promise<void>((r) => (finish = r)) };
    recent.push(slot);
    if (recent.length > slots) recent.shift();
    return () => {
      if (slot.doneAt === null) slot.doneAt = now();
      finish();
    };
  }

  return {
    acquire(signal) {
      // One waiter at a time keeps the order fair and the window exact.
      const turn = queue.then(() => waitTurn(signal));
      queue = turn.catch(() => undefined);
      return turn;
    },
    pause(ms) {
      pausedUntil = Math.max(pausedUntil, now() + ms);
    },
  };
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Which limiter paces a Kommo account: keyed by the account's base URL and subdomain. */
export type LimiterPool = (key: string, rps: number) => RateLimiter;

/**
 * One limiter per Kommo account, shared by the sync, the write-back and the API calls that use
 * the pool. Any user can name any subdomain ("Obtener Campos"), so the map is an LRU: the least
 * recently used limiter goes once the cap is reached. An evicted account had no request for a
 * long while, so its fresh limiter starts with nothing to wait for, as the old one would have
 * (the shared limiter's state is in the database anyway).
 */
export const LIMITER_CAP = 2_000;

export function createLimiterPool(make: (key: string, rps: number) => RateLimiter, cap = LIMITER_CAP) {
  const limiters = new Map<string, { rps: number; limiter: RateLimiter }>();
  const get: LimiterPool = (key, rps) => {
    const found = limiters.get(key);
    if (found) limiters.delete(key); // re-inserted below: Map order is the recency order
    const entry = found && found.rps === rps ? found : { rps, limiter: make(key, rps) };
    limiters.set(key, entry);
    while (limiters.size > cap) limiters.delete(limiters.keys().next().value as string);
    return entry.limiter;
  };
  return { get, size: () => limiters.size };
}

/**
 * The in-process pool: for the embedded database (one process) and for clients built without a
 * pool (tests, benches). A deployment on PostgreSQL uses createSharedLimiterPool instead.
 */
const localPool = createLimiterPool((_key, rps) => createRateLimiter(rps));
export const limiterFor: LimiterPool = localPool.get;
export const limiterCount = (): number => localPool.size();

export interface SharedLimiterOptions {
  /**
   * How long an in-flight request keeps its entry when its answer never comes back (its process
   * died): past it, the entry counts the request as arrived then. Longer than any request lasts.
   */
  holdMs?: number;
  marginMs?: number;
  /** When every entry is in flight, how soon to ask again; well under a window, so no slot is missed. */
  pollMs?: number;
  /** The process's reading of the database's clock, shared by its limiters. */
  clock?: DbClock;
}

/**
 * Bounds on the database's clock in this process's (monotonic) time, from the calls already made:
 * a call's database time was read somewhere between the call leaving and its answer, so
 * `dbTime - sentAt` bounds the offset from above and `dbTime - answeredAt` from below; the
 * fastest recent calls give the tightest bounds. A slow call then delays nothing: a request
 * starts when even the lowest possible offset puts it past its slot, and its answer is dated
 * with the highest (so never too early). Samples older than a few seconds are dropped, so the
 * clocks' drift (parts per million) stays far below the limiter's margin.
 */
export interface DbClock {
  observe(sentAt: number, answeredAt: number, dbMs: number): void;
  /** Local time at which the database's clock has surely reached `dbMs`. */
  localWhen(dbMs: number): number;
  /** The latest the database's clock can read at local time `at`. */
  dbAtMost(at: number): number;
}

const CLOCK_SAMPLE_MS = 5_000;
const CLOCK_SAMPLES = 64;

export function createDbClock(): DbClock {
  const samples: Array<{ at: number; hi: number; lo: number }> = [];
  const fresh = () => {
    const cutoff = now() - CLOCK_SAMPLE_MS;
    while (samples.length > 1 && (samples[0].at < cutoff || samples.length > CLOCK_SAMPLES)) samples.shift();
  };
  return {
    observe(sentAt, answeredAt, dbMs) {
      samples.push({ at: answeredAt, hi: dbMs - sentAt, lo: dbMs - answeredAt });
      fresh();
    },
    localWhen(dbMs) {
      fresh();
      return dbMs - Math.max(...samples.map((x) => x.lo));
    },
    dbAtMost(at) {
      fresh();
      return at + Math.min(...samples.map((x) => x.hi));
    },
  };
}

/**
 * The account's limit shared by every process on one PostgreSQL database (migration 0027): each
 * request reserves its start in the account's row with one short statement (kommo_rate_reserve),
 * sleeps here until then, and anchors its entry on its answer with another (kommo_rate_answered,
 * which may land late without delaying anyone: the answer's time is taken here). Same rule as
 * createRateLimiter: a request starts a window after the answer of the `perSecond`-th request
 * before it, whichever process sent either. Times are the database's (clock_timestamp()), read
 * here through DbClock's bounds, so any error only makes a request later, never earlier. The
 * database hands out slots in the order the reserve calls reach it, whichever process makes them.
 */
export function createSharedRateLimiter(db: Queryable, key: string, perSecond: number, opts: SharedLimiterOptions = {}): RateLimiter {
  const slots = Math.max(1, Math.floor(perSecond));
  const windowMs = (1000 * slots) / perSecond + (opts.marginMs ?? MARGIN_MS);
  const holdMs = opts.holdMs ?? 60_000;
  const pollMs = opts.pollMs ?? 50;
  const clock = opts.clock ?? createDbClock();
  let pausedUntil = 0;

  async function waitTurn(signal?: AbortSignal): Promise<() => void> {
    for (;;) {
      signal?.throwIfAborted();
      const paused = pausedUntil - now();
      if (paused > 0) {
        await sleep(paused, signal);
        continue;
      }
      const sentAt = now();
      const [row] = await rowsOf<{ entry: number | null; anchor: string | null; slot_ms: number | null; db_ms: number }>(
        db,
        sql`select entry, anchor, slot_ms, db_ms from kommo_rate_reserve(${key}::text, ${slots}::int, ${windowMs}::float8, ${holdMs}::float8)`,
      );
      clock.observe(sentAt, now(), Number(row.db_ms));
      if (row.entry === null || row.slot_ms === null || row.anchor === null) {
        await sleep(pollMs, signal); // every entry is in flight: one of them answers soon
        continue;
      }
      const { entry, anchor } = row;
      let answered = false;
      const done = () => {
        if (answered) return;
        answered = true;
        // If the statement fails, the entry keeps its hold: later requests only wait longer.
        const atMs = clock.dbAtMost(now());
        db.execute(sql`select kommo_rate_answered(${key}::text, ${entry}::int, ${anchor}::text, ${atMs}::float8)`).catch(() => undefined);
      };
      try {
        const wait = clock.localWhen(Number(row.slot_ms)) - now();
        if (wait > 0) await sleep(wait, signal);
      } catch (err) {
        done(); // never sent: the entry is free a window from now
        throw err;
      }
      return done;
    }
  }

  return {
    acquire: (signal) => waitTurn(signal),
    pause(ms) {
      pausedUntil = Math.max(pausedUntil, now() + ms);
      db.execute(sql`select kommo_rate_pause(${key}::text, ${ms}::float8)`).catch(() => undefined);
    },
  };
}

/** Shared limiters for every Kommo account a process talks to, on one PostgreSQL database. */
export function createSharedLimiterPool(db: Queryable, opts: SharedLimiterOptions = {}) {
  const clock = opts.clock ?? createDbClock();
  return createLimiterPool((key, rps) => createSharedRateLimiter(db, key, rps, { ...opts, clock }));
}
