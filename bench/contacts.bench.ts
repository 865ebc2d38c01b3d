/**
 * Filter engine speed (issue 4): filtered count and first page for search, tags AND / OR,
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
import pg from 'pg';
import { countScenarios } from '../simulators/src/data/index';
import { openDatabase, type Database } from '../server/src/db/client';
import { migrate } from '../server/src/db/migrate';
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
const PG_ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SEED = 11;
const RUNS = Number(args.runs);

const only = args.only ? new RegExp(args.only) : null;
const scenarios = (): Array<[string, ContactFilterInput]> => countScenarios(SEED).filter(([name]) => !only || only.test(name));

function p(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

/** `fn` timed RUNS times after two warm-up calls; `after` (untimed) runs after each call. */
async function time(fn: () => Promise<unknown>, after: () => Promise<unknown> = async () => {}): Promise<number[]> {
  for (let i = 0; i < 2; i++) {
    await fn(); // warm caches and plans
    await after();
  }
  const out: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    await fn();
    out.push(performance.now() - t);
    await after();
  }
  return out;
}

const ms = (v: number) => +v.toFixed(1);

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
  const mark = (v: number, target: number | undefined) => (target === undefined ? '' : v < target ? ' ok' : ' MISS');
  const col = (name: string, values: number[], target?: number) => ({
    [`${name} p50`]: ms(p(values, 0.5)),
    [`${name} p95${target ? ` (< ${target})` : ''}`]: `${ms(p(values, 0.95))}${mark(p(values, 0.95), target)}`,
    [`${name} p99`]: ms(p(values, 0.99)),
  });
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
  const name = args['keep-db'] ?? `masivo_bench_contacts_${process.pid}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  if (!args['reuse-db']) await admin.query(`create database ${name}`);
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  const database = await openDatabase({ url: url.toString(), poolSize: 4 });
  try {
    await migrate(database);
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
    await database.close();
    if (!args['keep-db']) await admin.query(`drop database if exists ${name}`);
    await admin.end();
  }
}

async function benchPglite(size: number) {
  const database = await openDatabase({});
  try {
    await migrate(database);
    console.log(`\nPGlite: loading ${size.toLocaleString('en')} contacts...`);
    const ids = await load(database, size);
    await measure(`PGlite (embedded), ${size.toLocaleString('en')} contacts (${RUNS} runs each)`, database, ids, { count: 100 });
  } finally {
    await database.close();
  }
}

if (!args['skip-pg']) await benchPostgres(Number(args['pg-size']));
if (!args['skip-pglite']) await benchPglite(Number(args['pglite-size']));
