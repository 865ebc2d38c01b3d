/**
 * Filter engine speed: filtered count and first page for search, tags AND / OR,
 * custom-field filters and all of them combined, on
 *   - PostgreSQL with 1,000,000 contacts in one account (targets: count p95 < 100 ms, first page p95 < 50 ms);
 *   - embedded PGlite with 200,000 contacts (target: count p95 < 100 ms).
 * The PostgreSQL run also loads 4 other tenants of 250,000 (--pg-others) so per-account scoping is exercised.
 *
 *   npx tsx bench/contacts.bench.ts [--pg-size 1000000] [--pglite-size 200000] [--runs 25] [--skip-pg] [--skip-pglite]
 *     [--only REGEX]   (measure only the scenarios whose name matches, e.g. --only "without|tags OR")
 *
 * Data comes from the simulator's generator (the same distribution the sync stores). The
 * PostgreSQL database is created for the run and dropped after it.
 */
import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import { countScenarios } from '../simulators/src/data/index';
import type { Database } from '../server/src/db/client';
import { openBenchDatabase } from './lib/database';
import { percentile as p, percentileColumns, timeRuns } from './lib/stats';
import { load } from './seed-contacts';
import type { ContactFilterInput } from '../contract/src/contact-filter';
import { countContacts, listContacts } from '../server/src/services/contacts/filter-engine';
import { createCountCache } from '../server/src/services/contacts/count-cache';
import { rowsOf } from '../server/src/db/sql';

const { values: args } = parseArgs({
  options: {
    'pg-size': { type: 'string', default: '1000000' },
    'pglite-size': { type: 'string', default: '200000' },
    /** Other tenants loaded beside the measured account ("count x size"), so per-account scoping is exercised. */
    'pg-others': { type: 'string', default: '4x250000' },
    runs: { type: 'string', default: '25' },
    'skip-pg': { type: 'boolean', default: false },
    'skip-pglite': { type: 'boolean', default: false },
    /** Keep the PostgreSQL database (named here) after the run, for EXPLAIN sessions. */
    'keep-db': { type: 'string' },
    /** Measure on a database kept by an earlier --keep-db run instead of loading again. */
    'reuse-db': { type: 'boolean', default: false },
    /** Load (with --keep-db) and stop: the measuring runs later with --reuse-db. */
    'load-only': { type: 'boolean', default: false },
    /** Only the scenarios whose name matches this regular expression. */
    only: { type: 'string' },
  },
});
const SEED = 11;
const RUNS = Number(args.runs);

const only = args.only ? new RegExp(args.only) : null;
const scenarios = (): Array<[string, ContactFilterInput]> => countScenarios(SEED).filter(([name]) => !only || only.test(name));

/** `fn` timed RUNS times after two warm-up calls; `after` (untimed) runs after each call. */
const time = (fn: () => Promise<unknown>, after?: () => Promise<unknown>) => timeRuns(fn, { runs: RUNS, after });

/**
 * Per scenario, after a data change (the count cache emptied before every call, as a bumped data
 * version does):
 * - "count": what the screen gets (count-cache.ts): the exact count when it is ready within the
 *   budget, else an estimate while the exact one runs on ("≈" says how many calls got one and
 *   their worst error);
 * - "exact": the uncached exact count (exact-count.ts), what the pre-flight and campaign totals use;
 * - "page": the first page of 20.
 * Percentiles over RUNS timed calls after two warm-up calls.
 */
async function measure(label: string, database: Database, ids: { userId: number; accountId: number }, targets: { count: number; page?: number }) {
  console.log(`\n${label}`);
  const counts = createCountCache(database.db, { estimates: database.kind === 'postgres' });
  const rows: Record<string, string | number>[] = [];
  let ok = true;
  const col = percentileColumns;
  for (const [name, filter] of scenarios()) {
    const p0 = { ...ids, filter };
    const matches = await countContacts(database.db, p0);
    let estimated = 0;
    let worst = 0;
    const screen = await time(async () => {
      const got = await counts.count(ids.userId, ids.accountId, filter);
      if (got.approximate) {
        estimated++;
        worst = Math.max(worst, Math.abs(got.count - matches) / Math.max(matches, 1));
      }
      // The next call comes after another change: this exact count finishes (untimed), then is forgotten.
    }, () => counts.exact(ids.userId, ids.accountId, filter).then(() => counts.clear()));
    const exact = await time(() => countContacts(database.db, p0));
    const page = await time(() => listContacts(database.db, { ...p0, limit: 20, offset: 0 }));
    ok &&= p(screen, 0.95) < targets.count && (targets.page === undefined || p(page, 0.95) < targets.page);
    rows.push({
      scenario: name,
      matches,
      ...col('count', screen, targets.count),
      '≈ (worst error)': estimated === 0 ? '-' : `${estimated}/${RUNS + 2} (${(worst * 100).toFixed(1)}%)`,
      ...col('exact', exact, targets.count),
      ...col('page', page, targets.page),
    });
  }
  console.table(rows);
  console.log(
    `ms; targets: count p95 < ${targets.count} ms${targets.page ? `, first page p95 < ${targets.page} ms` : ''} → ${ok ? 'all met' : 'NOT all met'}` +
      ` (every count is the first after a data change; "exact" is shown against the count target too)`,
  );
}

async function benchPostgres(size: number) {
  const bench = await openBenchDatabase('postgres', 'masivo_bench_contacts', { keep: args['keep-db'] });
  const { database } = bench;
  try {
    if (bench.existed && !args['reuse-db']) throw new Error(`${bench.name} exists: measure it with --reuse-db, or name another`);
    if (!bench.existed && args['reuse-db']) throw new Error(`${bench.name} does not exist: load it first with --keep-db ${bench.name} --load-only`);
    let ids: { userId: number; accountId: number };
    if (args['reuse-db']) {
      [ids] = await rowsOf<{ userId: number; accountId: number }>(database.db,
        sql`select user_id as "userId", id as "accountId" from kommo_accounts where subdomain = 'bench' order by id limit 1`,
      );
    } else {
      const [count, each] = args['pg-others'].split('x').map(Number);
      console.log(`PostgreSQL: loading ${size.toLocaleString('en')} contacts, plus ${count} other tenants of ${each.toLocaleString('en')}...`);
      ids = await load(database, size, { count, size: each });
      if (args['load-only']) return;
    }
    await measure(`PostgreSQL, ${size.toLocaleString('en')} contacts in one account (${RUNS} runs each)`, database, ids, { count: 100, page: 50 });
  } finally {
    await bench.close();
  }
}

async function benchPglite(size: number) {
  const bench = await openBenchDatabase('pglite', 'masivo-bench-contacts');
  const { database } = bench;
  try {
    console.log(`\nPGlite: loading ${size.toLocaleString('en')} contacts...`);
    const ids = await load(database, size);
    await measure(`PGlite (embedded), ${size.toLocaleString('en')} contacts (${RUNS} runs each)`, database, ids, { count: 100 });
  } finally {
    await bench.close();
  }
}

if (!args['skip-pg']) await benchPostgres(Number(args['pg-size']));
if (!args['skip-pglite']) await benchPglite(Number(args['pglite-size']));
