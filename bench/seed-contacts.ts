/**
 * The contacts every bench loads (contacts, pre-flight): the simulator's generator, bulk
 * inserted with the filter indexes dropped and built once after, then VACUUM (ANALYZE).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { contactAt } from '../simulators/src/data/index';
import type { Database } from '../server/src/db/client';
import { splitStatements } from '../server/src/db/migrate';
import { rowsOf } from '../server/src/db/sql';

export const SEED = 11;

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

export async function tenant(database: Database, name: string): Promise<{ userId: number; accountId: number }> {
  const [{ id: userId }] = await rowsOf<{ id: number }>(database.db, sql`insert into users (email, password_hash) values (${`${name}@example.com`}, 'x') returning id`);
  const [{ id: accountId }] = await rowsOf<{ id: number }>(database.db,
    sql`insert into kommo_accounts (user_id, subdomain, access_token_enc, phone_field_id, sync_status) values (${userId}, ${name}, 'x', 1, 'synced') returning id`,
  );
  return { userId, accountId };
}

/** The measured account (subdomain "bench") plus `others` tenants of their own, each with other data. */
export async function load(database: Database, size: number, others: { count: number; size: number } = { count: 0, size: 0 }) {
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

