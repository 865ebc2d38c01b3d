import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { rowsOf, type Queryable } from './sql';

/**
 * Events per key in a sliding window, counted in the database (rate_counters, migration 0027) so
 * every API process of a deployment shares one count: two processes cannot double a limit. A
 * key keeps at most `limit` recent times; each new key removes two whose window is over.
 * Keys are stored as the counter’s name and a hash, never an address or an e-mail in clear.
 * Times are the database's clock.
 */
export interface RateCounter {
  /** Hits within the window. */
  count(key: string): Promise<number>;
  /** True once the key has reached the limit within the window. */
  isLimited(key: string): Promise<boolean>;
  /** Records a hit, even over the limit. */
  hit(key: string): Promise<void>;
  /** Records a hit only while under the limit, atomically; says whether it was recorded. */
  take(key: string): Promise<boolean>;
  reset(key: string): Promise<void>;
}

export interface RateCounterOptions {
  /** Tells counters apart in the shared table. */
  name: string;
  limit: number;
  windowMs: number;
}

export function createRateCounter(db: Queryable, { name, limit, windowMs }: RateCounterOptions): RateCounter {
  const keyOf = (key: string) => `${name}:${createHash('sha256').update(key).digest('base64url').slice(0, 32)}`;
  const hit = async (key: string, force: boolean) => {
    const [row] = await rowsOf<{ before: number }>(
      db,
      sql`select rate_counter_hit(${keyOf(key)}::text, ${limit}::int, ${windowMs}::float8, ${force}::boolean) as before`,
    );
    return Number(row.before);
  };
  const count = async (key: string) => {
    const [row] = await rowsOf<{ n: number }>(
      db,
      sql`select count(*)::int as n from rate_counters c, unnest(c.hits) h
          where c.key = ${keyOf(key)} and h > clock_timestamp() - make_interval(secs => ${windowMs / 1000}::float8)`,
    );
    return Number(row.n);
  };
  return {
    count,
    isLimited: async (key) => (await count(key)) >= limit,
    hit: async (key) => void (await hit(key, true)),
    take: async (key) => (await hit(key, false)) < limit,
    reset: async (key) => void (await db.execute(sql`delete from rate_counters where key = ${keyOf(key)}`)),
  };
}
