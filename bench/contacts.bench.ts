/**
 * Filter engine speed (issue 4): filtered count and first page for search, tags AND / OR,
 * custom-field filters and all of them combined, on
 *   - PostgreSQL with 1,000,000 contacts in one account (targets: count p95 < 100 ms, first page p95 < 50 ms);
 *   - embedded PGlite with 200,000 contacts (target: count p95 < 100 ms).
 * The PostgreSQL run also loads 4 other tenants of 250,000 (--pg-others) so per-account scoping is exercised.
 *
 *   npx tsx bench/contacts.bench.ts [--pg-size 1000000] [--pglite-size 200000] [--runs 25] [--skip-pg] [--skip-pglite]
 *
 * Data comes from the simulator's generator (the same distribution the sync stores). The
 * PostgreSQL database is created for the run and dropped after it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { contactAt, countScenarios } from '../simulators/src/data/index';
import { openDatabase, type Database } from '../server/src/db/client';
import { migrate, splitStatements } from '../server/src/db/migrate';
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
  },
});
const PG_ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SEED = 11;
const RUNS = Number(args.runs);

/** The secondary indexes on contacts and contact_search from every migration: dropped during the bulk load and built once after it. */
function filterIndexStatements(): { name: string; create: string }[] {
  const dir = join(import.meta.dirname, '../server/src/db/migrations');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .flatMap((f) => splitStatements(readFileSync(join(dir, f), 'utf8')))
    .filter((s) => /^create index \w+ on (contacts|contact_search)\b/.test(s))
    .map((create) => ({ name: /^create index (\w+)/.exec(create)![1], create }));
}

function secs(ms: number): string {
  return `${(ms / 1000).toFixed(0)} s`;
}

function record(i: number, seed = SEED) {
  const g = contactAt(seed, i);
  const custom: Record<string, string> = {};
  for (const [k, v] of Object.entries(g.custom)) if (v) custom[k] = v;
  return {
    kommo_id: i + 1,
    name: g.name,
    first_name: g.firstName,
    last_name: g.lastName,
    phone: g.e164,
    phone_raw: g.phones[0]?.value ?? null,
    email: g.email,
    tags: g.tags,
    custom_fields: custom,
    kommo_updated_at: 1_600_000_000 + Math.floor(i / 2),
  };
}

async function insertContacts(database: Database, ids: { userId: number; accountId: number }, size: number, seed: number) {
  const BATCH = 5000;
  for (let from = 0; from < size; from += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, size - from) }, (_, k) => record(from + k, seed));
    await database.db.execute(sql`
      insert into contacts (user_id, account_id, kommo_id, name, first_name, last_name, phone, phone_raw, email, tags, custom_fields, kommo_updated_at)
      select ${ids.userId}, ${ids.accountId}, x.kommo_id, x.name, x.first_name, x.last_name, x.phone, x.phone_raw, x.email, x.tags, x.custom_fields, x.kommo_updated_at
      from jsonb_to_recordset(${JSON.stringify(batch)}::jsonb) as x(kommo_id bigint, name text, first_name text, last_name text,
        phone text, phone_raw text, email text, tags text[], custom_fields jsonb, kommo_updated_at bigint)`);
    if (process.stdout.isTTY && (from / BATCH) % 40 === 0) process.stdout.write(`  loaded ${from.toLocaleString('en')}\r`);
  }
}

async function tenant(database: Database, name: string): Promise<{ userId: number; accountId: number }> {
  const [{ id: userId }] = await rowsOf<{ id: number }>(database.db, sql`insert into users (email, password_hash) values (${`${name}@example.com`}, 'x') returning id`);
  const [{ id: accountId }] = await rowsOf<{ id: number }>(database.db,
    sql`insert into kommo_accounts (user_id, subdomain, access_token_enc, phone_field_id, sync_status) values (${userId}, ${name}, 'x', 1, 'synced') returning id`,
  );
  return { userId, accountId };
}

/** The measured account (subdomain "bench") plus `others` tenants of their own, each with other data. */
async function load(database: Database, size: number, others: { count: number; size: number } = { count: 0, size: 0 }) {
  const { db } = database;
  const ids = await tenant(database, 'bench');
  const indexes = filterIndexStatements();
  for (const ix of indexes) await db.execute(sql.raw(`drop index if exists ${ix.name}`));
  const started = Date.now();
  await insertContacts(database, ids, size, SEED);
  for (let k = 1; k <= others.count; k++) await insertContacts(database, await tenant(database, `other${k}`), others.size, SEED + k);
  const loaded = Date.now();
  for (const ix of indexes) await db.execute(sql.raw(ix.create));
  const indexed = Date.now();
  // A deployment's autovacuum does this after a sync: it sets hint bits and the visibility map,
  // so the measured queries do not pay for the bulk load (first reads would dirty every page).
  await db.execute(sql`vacuum (analyze) contacts, contact_facets, contact_search, contact_key_counts`);
  const total = size + others.count * others.size;
  console.log(
    `  ${total.toLocaleString('en')} contacts loaded in ${secs(loaded - started)}, indexed in ${secs(indexed - loaded)}, ` +
      `then VACUUM (ANALYZE) in ${secs(Date.now() - indexed)}`,
  );
  return ids;
}

const scenarios = (): Array<[string, ContactFilterInput]> => countScenarios(SEED);

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
