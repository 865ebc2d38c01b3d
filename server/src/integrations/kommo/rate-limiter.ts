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
  acquire(signal?: AbortSignal): Promise<() => void>;
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

/**
 * One limiter per Kommo account in this process, shared by the sync and the API calls. Any user
 * can name any subdomain ("Obtener Campos"), so the map is an LRU: the least recently used
 * limiter goes once the cap is reached. An evicted account had no request for a long while, so
 * its fresh limiter starts with nothing to wait for, as the old one would have.
 */
export const LIMITER_CAP = 2_000;
const limiters = new Map<string, { rps: number; limiter: RateLimiter }>();

export function limiterFor(key: string, rps: number): RateLimiter {
  const found = limiters.get(key);
  if (found) limiters.delete(key); // re-inserted below: Map order is the recency order
  const entry = found && found.rps === rps ? found : { rps, limiter: createRateLimiter(rps) };
  limiters.set(key, entry);
  while (limiters.size > LIMITER_CAP) limiters.delete(limiters.keys().next().value as string);
  return entry.limiter;
}

export function limiterCount(): number {
  return limiters.size;
}
