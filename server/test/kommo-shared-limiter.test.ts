import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import type { Database } from '../src/db/client';
import { migrate } from '../src/db/migrate';
import { rowsOf } from '../src/db/sql';
import { createSharedRateLimiter } from '../src/integrations/kommo/rate-limiter';
import { openTestDatabase } from './helpers/app';

let database: Database;
let drop: () => Promise<void>;

beforeAll(async () => {
  ({ database, drop } = await openTestDatabase());
  await migrate(database);
});
afterAll(async () => drop());

/** Largest number of sorted times inside any window [t, t + ms). */
function maxInWindow(sorted: number[], ms: number): number {
  let best = 0;
  for (let start = 0, end = 0; end < sorted.length; end++) {
    while (sorted[end] - sorted[start] >= ms) start++;
    best = Math.max(best, end - start + 1);
  }
  return best;
}

/** Requests through `limiters` in turns from `workers` callers each, for `ms`; the start times (ms). */
async function drive(limiters: ReturnType<typeof createSharedRateLimiter>[], workers: number, ms: number, latencyMs = 5) {
  const starts: number[] = [];
  const until = performance.now() + ms;
  await Promise.all(
    limiters.flatMap((limiter) =>
      Array.from({ length: workers }, async () => {
        while (performance.now() < until) {
          const done = await limiter.acquire();
          starts.push(performance.now());
          await new Promise((r) => setTimeout(r, latencyMs)); // the request on the wire
          done();
        }
      }),
    ),
  );
  return starts.sort((a, b) => a - b);
}

describe('Kommo limiter shared through the database', () => {
  it('two limiters of one account (two processes) together start at most the rate in any second, and use it', async () => {
    const a = createSharedRateLimiter(database.db, 'sim|compartida', 7);
    const b = createSharedRateLimiter(database.db, 'sim|compartida', 7);
    const starts = await drive([a, b], 3, 3000);
    expect(maxInWindow(starts, 1000)).toBeLessThanOrEqual(7);
    // Over the busy seconds (after the first burst of 7), close to 7 a second.
    const busy = starts.filter((t) => t >= starts[0] + 1000);
    const rate = (busy.length - 1) / ((busy.at(-1)! - busy[0]) / 1000);
    expect(rate).toBeGreaterThan(6.3);
  }, 15_000);

  it('accounts do not share a window', async () => {
    const one = createSharedRateLimiter(database.db, 'sim|una', 2);
    const two = createSharedRateLimiter(database.db, 'sim|otra', 2);
    const t0 = performance.now();
    for (const l of [one, two, one, two]) (await l.acquire())();
    expect(performance.now() - t0).toBeLessThan(500);
  });

  it('after a 429 pause, the other process waits too', async () => {
    const a = createSharedRateLimiter(database.db, 'sim|pausada', 7);
    const b = createSharedRateLimiter(database.db, 'sim|pausada', 7);
    (await a.acquire())();
    a.pause(600);
    await new Promise((r) => setTimeout(r, 50)); // the pause reaches the database
    const t0 = performance.now();
    (await b.acquire())();
    expect(performance.now() - t0).toBeGreaterThanOrEqual(450);
  });

  it('a request that never answers (its process died) holds its entry only until its hold runs out', async () => {
    const dead = createSharedRateLimiter(database.db, 'sim|caida', 1, { holdMs: 300 });
    await dead.acquire(); // never answered
    const alive = createSharedRateLimiter(database.db, 'sim|caida', 1, { holdMs: 300, pollMs: 20 });
    const t0 = performance.now();
    (await alive.acquire())();
    const waited = performance.now() - t0;
    // the hold (300 ms) and then a window (1 s) after it, not forever
    expect(waited).toBeGreaterThanOrEqual(1200);
    expect(waited).toBeLessThan(3000);
  }, 10_000);

  it('keeps one row per account, its entries anchored on the answers', async () => {
    const rows = await rowsOf<{ account_key: string; n: number }>(
      database.db,
      sql`select account_key, cardinality(anchors) as n from kommo_rate_windows where account_key = 'sim|compartida'`,
    );
    expect(rows).toEqual([{ account_key: 'sim|compartida', n: 7 }]);
    const [{ future }] = await rowsOf<{ future: number }>(
      database.db,
      sql`select count(*)::int as future from kommo_rate_windows, unnest(anchors) a where account_key = 'sim|compartida' and a > clock_timestamp()`,
    );
    expect(future).toBe(0);
  });
});

describe('accounts table', () => {
  it('a new account removes accounts idle for an hour, not those in use', async () => {
    await database.db.execute(sql`insert into kommo_rate_windows (account_key, anchors, updated_at)
      values ('sim|dormida1', array['-infinity'::timestamptz], now() - interval '2 hours'),
             ('sim|dormida2', array['-infinity'::timestamptz], now() - interval '3 hours')`);
    (await createSharedRateLimiter(database.db, 'sim|nueva', 7).acquire())();
    const keys = (await rowsOf<{ account_key: string }>(database.db, sql`select account_key from kommo_rate_windows order by account_key`)).map((r) => r.account_key);
    expect(keys).not.toContain('sim|dormida1');
    expect(keys).not.toContain('sim|dormida2');
    expect(keys).toEqual(expect.arrayContaining(['sim|nueva', 'sim|compartida', 'sim|caida']));
  });
});
