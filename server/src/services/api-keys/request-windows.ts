import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { preparedRows } from '../../db/sql';

/**
 * Requests per key in fixed windows, counted in the database (api_rate_windows, 0040) so every
 * API process of a deployment shares one count. One statement per request: it opens a new
 * window when the last one is over, or counts one more in it, and answers the count and the
 * milliseconds left. The shape is the store `@fastify/rate-limit` expects.
 */
export function databaseRateLimitStore(db: Db) {
  return class DatabaseRateLimitStore {
    incr(key: string, cb: (err: Error | null, res?: { current: number; ttl: number }) => void, timeWindow: number) {
      preparedRows<{ hits: number; ttl: number }>(
        db,
        sql`insert into api_rate_windows as w (key, hits, resets_at)
            values (${key}, 1, clock_timestamp() + make_interval(secs => ${timeWindow / 1000}::float8))
            on conflict (key) do update set
              hits = case when w.resets_at <= clock_timestamp() then 1 else w.hits + 1 end,
              resets_at = case when w.resets_at <= clock_timestamp()
                               then clock_timestamp() + make_interval(secs => ${timeWindow / 1000}::float8) else w.resets_at end
            returning hits, greatest(0, extract(epoch from (resets_at - clock_timestamp())) * 1000)::float8 as ttl`,
      ).then(
        ([row]) => cb(null, { current: Number(row!.hits), ttl: Math.ceil(Number(row!.ttl)) }),
        (err: Error) => cb(err),
      );
    }

    child() {
      return this;
    }
  };
}

/** Windows over for a while are removed (the job runner's daily housekeeping). */
export async function pruneRateWindows(db: Db): Promise<number> {
  const rows = await preparedRows(db, sql`delete from api_rate_windows where resets_at < now() - interval '1 hour' returning key`);
  return rows.length;
}
