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
import { contactAt, tagsForSeed } from '../simulators/src/data/index';
import { openDatabase, type Database } from '../server/src/db/client';
import { migrate, splitStatements } from '../server/src/db/migrate';
import type { ContactFilterInput } from '../contract/src/contact-filter';
import { countContacts, listContacts } from '../server/src/services/contacts/filter-engine';
import { createCountCache } from '../server/src/services/contacts/count-cache';

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

/** The secondary indexes on contacts from every migration: dropped during the bulk load and built once after it. */
function filterIndexStatements(): { name: string; create: string }[] {
  const dir = join(import.meta.dirname, '../server/src/db/migrations');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .flatMap((f) => splitStatements(readFileSync(join(dir, f), 'utf8')))
    .filter((s) => /^create index \w+ on contacts\b/.test(s))
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
  const [{ id: userId }] = await database.rows<{ id: number }>(sql`insert into users (email, password_hash) values (${`${name}@example.com`}, 'x') returning id`);
  const [{ id: accountId }] = await database.rows<{ id: number }>(
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
  await db.execute(sql`vacuum (analyze) contacts, contact_facets`);
  const total = size + others.count * others.size;
  console.log(
    `  ${total.toLocaleString('en')} contacts loaded in ${secs(loaded - started)}, indexed in ${secs(indexed - loaded)}, ` +
      `then VACUUM (ANALYZE) in ${secs(Date.now() - indexed)}`,
  );
  return ids;
}

function scenarios(): Array<[string, ContactFilterInput]> {
  const tags = tagsForSeed(SEED);
  const [t1, t2] = tags;
  return [
    ['search name "mar"', { searchQuery: 'mar' }],
    ['search email "hotmail"', { searchQuery: 'hotmail' }],
    ['search phone "11 2345"', { searchQuery: '11 2345' }],
    ['tags AND (2)', { tags: [t1, t2], tagOperator: 'AND' }],
    ['tags OR (2)', { tags: [t1, t2], tagOperator: 'OR' }],
    ['field specific Plan=Pro', { customFieldFilters: { Plan: { mode: 'specific', values: ['Pro'] } } }],
    ['field contains Ciudad "san"', { customFieldFilters: { Ciudad: { mode: 'manual', manualValue: 'san' } } }],
    ['field exists Origen', { customFieldFilters: { Origen: { mode: 'exists' } } }],
    ['field notExists Origen', { customFieldFilters: { Origen: { mode: 'notExists' } } }],
    [
      'combined search+tags+fields',
      {
        searchQuery: 'a',
        tags: [t1, t2, tags[2]],
        tagOperator: 'OR',
        customFieldFilters: { Plan: { mode: 'specific', values: ['Pro', 'Empresa'] }, Ciudad: { mode: 'exists' } },
      },
    ],
  ];
}

function p(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

async function time(fn: () => Promise<unknown>): Promise<number[]> {
  await fn();
  await fn(); // warm caches and plans
  const out: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    await fn();
    out.push(performance.now() - t);
  }
  return out;
}

const ms = (v: number) => +v.toFixed(1);

/**
 * Per scenario: the count the screen gets (count-cache.ts, keyed by the data version), the exact
 * recount a change of data costs (the filter engine alone, what the first ask after a sync pays),
 * and the first page. Percentiles over RUNS timed calls after two warm-up calls.
 */
async function measure(label: string, database: Database, ids: { userId: number; accountId: number }, targets: { count: number; page?: number }) {
  console.log(`\n${label}`);
  const counts = createCountCache(database.db);
  const rows: Record<string, string | number>[] = [];
  let ok = true;
  const mark = (v: number, target: number | undefined) => (target === undefined ? '' : v < target ? ' ok' : ' MISS');
  for (const [name, filter] of scenarios()) {
    const p0 = { ...ids, filter };
    const matches = await countContacts(database.db, p0);
    const screen = await time(() => counts.count(ids.userId, ids.accountId, filter));
    const exact = await time(() => countContacts(database.db, p0));
    const page = await time(() => listContacts(database.db, { ...p0, limit: 20, offset: 0 }));
    const countOk = p(screen, 0.95) < targets.count;
    const pageOk = targets.page === undefined || p(page, 0.95) < targets.page;
    ok &&= countOk && pageOk;
    rows.push({
      scenario: name,
      matches,
      'count p50': ms(p(screen, 0.5)),
      'count p95': `${ms(p(screen, 0.95))}${mark(p(screen, 0.95), targets.count)}`,
      'count p99': ms(p(screen, 0.99)),
      'recount p50': ms(p(exact, 0.5)),
      'recount p95': `${ms(p(exact, 0.95))}${mark(p(exact, 0.95), targets.count)}`,
      'page p50': ms(p(page, 0.5)),
      'page p95': `${ms(p(page, 0.95))}${mark(p(page, 0.95), targets.page)}`,
      'page p99': ms(p(page, 0.99)),
    });
  }
  console.table(rows);
  console.log(
    `ms; targets: count p95 < ${targets.count} ms${targets.page ? `, first page p95 < ${targets.page} ms` : ''} → ${ok ? 'all met' : 'NOT all met'}` +
      ` ("recount" is the uncached exact count after a data change, shown against the count target)`,
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
      [ids] = await database.rows<{ userId: number; accountId: number }>(
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
