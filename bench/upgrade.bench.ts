/**
 * An upgrade at scale, on PostgreSQL: a database of an earlier release (every migration before
 * `--from`) is filled with 1,000,000 contacts and a sent campaign to every distinct phone among them, then
 * the migrations from `--from` on are applied and timed (target: seconds, under 10 s), and every
 * contact and recipient is counted again afterwards (none lost).
 *
 *   npx tsx bench/upgrade.bench.ts [--from 0042] [--size 1000000]
 */
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import { migrate } from '../server/src/db/migrate';
import { rowsOf } from '../server/src/db/sql';
import { openBenchDatabase } from './lib/database';
import { load } from './seed-contacts';

const { values: args } = parseArgs({ options: { from: { type: 'string', default: '0042' }, size: { type: 'string', default: '1000000' } } });
const SIZE = Number(args.size);
const FROM = args.from!;
const TARGET_MS = 10_000;
const MIGRATIONS = join(dirname(fileURLToPath(import.meta.url)), '../server/src/db/migrations');
const ALL = readdirSync(MIGRATIONS).filter((f) => /^\d{4}_[\w-]+\.sql$/.test(f)).sort();

const bench = await openBenchDatabase('postgres', 'bench_upgrade', { migrate: false, poolSize: 4 });
const dir = mkdtempSync(join(tmpdir(), 'bench-upgrade-migrations-'));
let failed = false;
try {
  const { database } = bench;
  const db = database.db;
  for (const f of ALL.filter((f) => f < FROM)) cpSync(join(MIGRATIONS, f), join(dir, f));
  await migrate(database, { dir });
  const ids = await load(database, SIZE);

  // A sent campaign over every contact, written as that release wrote its rows.
  const t0 = performance.now();
  const [{ id: numberId }] = await rowsOf<{ id: number }>(db, sql`insert into whatsapp_accounts (user_id, name, phone_number, phone_number_id, business_account_id, access_token_enc)
    values (${ids.userId}, 'Bench', '+5491100000000', '900001', '800001', 'x') returning id`);
  const [{ id: templateId }] = await rowsOf<{ id: number }>(db, sql`insert into templates (user_id, whatsapp_account_id, name, language, category, status, components)
    values (${ids.userId}, ${numberId}, 'bench', 'es', 'MARKETING', 'APPROVED', '[]'::jsonb) returning id`);
  const [{ id: campaignId }] = await rowsOf<{ id: number }>(db, sql`insert into campaigns (user_id, name, kommo_account_id, whatsapp_account_id, template_id, filters, status)
    values (${ids.userId}, 'Enviada', ${ids.accountId}, ${numberId}, ${templateId}, '{}'::jsonb, 'completed') returning id`);
  await db.execute(sql`insert into campaign_recipients (campaign_id, user_id, contact_id, phone, phone_key, status)
    select distinct on (c.phone) ${campaignId}, ${ids.userId}, c.id, c.phone, c.phone, 'delivered' from contacts c where c.user_id = ${ids.userId} and c.phone is not null order by c.phone, c.id`);
  await db.execute(sql`vacuum (analyze) campaign_recipients`);
  const recipientsBefore = await count(sql`select count(*)::int as n from campaign_recipients`);
  const contactsBefore = await count(sql`select count(*)::int as n from contacts`);
  console.log(`  a sent campaign of ${recipientsBefore.toLocaleString('en')} recipients written in ${((performance.now() - t0) / 1000).toFixed(0)} s`);

  for (const f of ALL) cpSync(join(MIGRATIONS, f), join(dir, f));
  const started = performance.now();
  const applied = await migrate(database, { dir });
  const ms = performance.now() - started;
  const recipientsAfter = await count(sql`select count(*)::int as n from campaign_recipients`);
  const contactsAfter = await count(sql`select count(*)::int as n from contacts`);
  console.log(`\nUpgrade from ${FROM} over ${contactsBefore.toLocaleString('en')} contacts and ${recipientsBefore.toLocaleString('en')} recipients: ${applied.join(', ')}`);
  console.log(`  ${(ms / 1000).toFixed(2)} s (target < ${TARGET_MS / 1000} s) ${ms < TARGET_MS ? 'ok' : 'MISS'}`);
  console.log(`  rows kept: contacts ${contactsAfter.toLocaleString('en')} of ${contactsBefore.toLocaleString('en')}, recipients ${recipientsAfter.toLocaleString('en')} of ${recipientsBefore.toLocaleString('en')}`);
  failed = ms >= TARGET_MS || recipientsAfter !== recipientsBefore || contactsAfter !== contactsBefore || applied.length === 0;
} finally {
  rmSync(dir, { recursive: true, force: true });
  await bench.close();
}
process.exit(failed ? 1 : 0);

async function count(query: ReturnType<typeof sql>): Promise<number> {
  const [{ n }] = await rowsOf<{ n: number }>(bench.database.db, query);
  return n;
}
