import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { rowsOf, withoutJit } from '../../db/sql';
import { countByKeys, EVERY_CONTACT_KEY } from './facet-count';
import { contactFilterSql, type FilterParams } from './filter-engine';

/** About this many contacts are read, whatever the table's size: a few milliseconds. */
const SAMPLE_ROWS = 10_000;
/** Fewer sampled matches than this would make a poor estimate (about ±20% or worse). */
const MIN_SAMPLED_MATCHES = 25;

/**
 * What the screen shows while an exact count is still running: the share of a page sample of
 * contacts (the same sample every time, so repeated estimates agree) that the filter selects,
 * times the account's exact total. Null when the sample holds too few matches to go by.
 */
export async function estimateCount(db: Db, p: FilterParams): Promise<number | null> {
  const where = contactFilterSql(p);
  return withoutJit(db, async (tx) => {
    const execute = (q: Parameters<typeof rowsOf>[1]) => rowsOf(tx, q);
    const [{ pct }] = await rowsOf<{ pct: number }>(
      tx,
      sql`select least(100, greatest(0.01, 100.0 * ${SAMPLE_ROWS} / greatest(reltuples, 1)))::float8 as pct
          from pg_class where oid = 'contacts'::regclass`,
    );
    const [sample] = await rowsOf<{ hit: number; seen: number }>(
      tx,
      sql`select (count(*) filter (where ${where}))::int as hit, count(*)::int as seen
          from contacts c tablesample system (${Number(pct)}::float4) repeatable (16)
          where c.user_id = ${p.userId} and c.account_id = ${p.accountId}`,
    );
    // A handful of sampled matches says little (a rare term may have none): wait for the exact count.
    if (!sample || Number(sample.hit) < MIN_SAMPLED_MATCHES) return null;
    const total = await countByKeys(execute, p, EVERY_CONTACT_KEY);
    return Math.round((total * Number(sample.hit)) / Number(sample.seen));
  });
}
