/**
 * `npm run bench -- scaling`: the query plans behind docs/SCALING.md. Seeds a scratch PostgreSQL
 * database through the real migrations with ACCOUNTS Kommo accounts of PER_ACCOUNT contacts each
 * (default 1,000 × 10,000 = 10,000,000), one campaign of 10,000 recipients per account for the
 * first 100 accounts, then prints EXPLAIN (ANALYZE, BUFFERS) of the queries that decide how the
 * console grows past one server: the per-account ones (they partition and distribute cleanly) and
 * the ones that cross accounts today.
 *
 * Options: --accounts N --per-account N --keep-db NAME (reuse with --reuse-db).
 * The load disables triggers (session_replication_role = replica) and builds indexes afterwards,
 * as a bulk restore would; it takes minutes on a small machine.
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import { openDatabase } from '../server/src/db/client';
import { migrate } from '../server/src/db/migrate';
import { scratchPostgres } from './lib/database';

const { values: args } = parseArgs({
  options: {
    accounts: { type: 'string', default: '1000' },
    'per-account': { type: 'string', default: '10000' },
    'keep-db': { type: 'string' },
    'reuse-db': { type: 'boolean', default: false },
  },
});
const ACCOUNTS = Number(args.accounts);
const PER_ACCOUNT = Number(args['per-account']);
const scratch = await scratchPostgres('masivo_scaling', { keep: args['keep-db'] });
if (scratch.existed !== args['reuse-db']) {
  await scratch.drop();
  throw new Error(args['reuse-db'] ? `${scratch.name} does not exist: load it first with --keep-db` : `${scratch.name} exists: measure it with --reuse-db`);
}
const url = scratch.url;

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const client = new pg.Client({ connectionString: url });
try {
  if (!args['reuse-db']) {
    const database = await openDatabase({ url, poolSize: 1 });
    await migrate(database);
    await database.close();
  }
  await client.connect();
  await client.query(`set statement_timeout = 0`);
  if (!args['reuse-db']) await load();
  await client.query('analyze');
  await explainAll();
} finally {
  await client.end();
  await scratch.drop();
}

async function load() {
  const q = (text: string, values: unknown[] = []) => client.query(text, values);
  let t = performance.now();
  await q(`insert into users (email, password_hash) select 'tenant' || i || '@example.com', 'x' from generate_series(1, $1::int) i`, [ACCOUNTS]);
  await q(
    `insert into kommo_accounts (user_id, subdomain, access_token_enc, phone_field_id)
     select id, 'cuenta' || id, 'v1.x.x.x', 1 from users order by id`,
  );
  await q(
    `insert into whatsapp_accounts (user_id, name, phone_number, phone_number_id, access_token_enc, business_account_id, kommo_account_id, owner_verified_at)
     select ka.user_id, 'WA', '+5491100000000', (100000 + ka.id)::text, 'v1.x.x.x', (200000 + ka.id)::text, ka.id, now() from kommo_accounts ka`,
  );
  // Bulk load as a restore does it: no triggers (per-account versions and counts are rebuilt by the
  // first sync), secondary indexes dropped first and built again afterwards.
  await q(`set session_replication_role = replica`);
  const indexes = (
    await q(`select i.indexname as name, i.indexdef as def from pg_indexes i
             where i.schemaname = current_schema() and i.tablename in ('contacts', 'campaign_recipients')
               and not exists (select 1 from pg_constraint c where c.conname = i.indexname)`)
  ).rows as { name: string; def: string }[];
  for (const ix of indexes) await q(`drop index ${ix.name}`);
  const accounts = (await q(`select id, user_id from kommo_accounts order by id`)).rows as { id: number; user_id: number }[];
  const chunk = Math.max(1, Math.floor(1_000_000 / PER_ACCOUNT));
  for (let i = 0; i < accounts.length; i += chunk) {
    const ids = accounts.slice(i, i + chunk);
    await q(
      `insert into contacts (user_id, account_id, kommo_id, name, first_name, last_name, email, phone, phone_raw, tags, custom_fields)
       select a.user_id, a.id, g, 'Cliente ' || g, 'Nombre' || (g % 500), 'Apellido' || (g % 97), 'c' || g || '@correo.com',
         '+54911' || lpad((a.id * 100000 + g)::text, 8, '0'), '11 ' || g,
         array['etiqueta' || (g % 31), 'grupo' || (g % 7)],
         jsonb_build_object('Ciudad', 'Ciudad ' || (g % 50), 'Plan', case when g % 3 = 0 then 'Pro' else 'Base' end)
       from unnest($1::int[], $2::int[]) as a(id, user_id), generate_series(1, $3::int) g`,
      [ids.map((a) => a.id), ids.map((a) => a.user_id), PER_ACCOUNT],
    );
    process.stdout.write(`\r  contacts: ${Math.min(i + chunk, accounts.length) * PER_ACCOUNT} (${secs(performance.now() - t)})`);
  }
  process.stdout.write('\n');
  // One frozen campaign per account for the first 100 accounts, as a busy platform holds.
  await q(
    `insert into campaigns (user_id, name, status, kommo_account_id, whatsapp_account_id, audience_frozen_at)
     select ka.user_id, 'c', 'sending', ka.id, wa.id, now() from kommo_accounts ka join whatsapp_accounts wa on wa.kommo_account_id = ka.id
     order by ka.id limit 100`,
  );
  await q(
    `insert into campaign_recipients (campaign_id, user_id, contact_id, phone, phone_key, status)
     select c.id, c.user_id, ct.id, ct.phone, ct.phone, case when ct.id % 10 = 0 then 'pending' else 'delivered' end
     from campaigns c join contacts ct on ct.account_id = c.kommo_account_id`,
  );
  console.log(`  loaded ${(ACCOUNTS * PER_ACCOUNT).toLocaleString('en')} contacts in ${secs(performance.now() - t)}`);
  t = performance.now();
  await q(`set maintenance_work_mem = '256MB'`);
  for (const ix of indexes) await q(ix.def);
  await q(`set session_replication_role = origin`);
  console.log(`  ${indexes.length} indexes built in ${secs(performance.now() - t)}`);
  t = performance.now();
  await q(`vacuum analyze`);
  console.log(`  vacuum analyze in ${secs(performance.now() - t)}`);
}

async function explainAll() {
  const [{ id: account, user_id: user }] = (await client.query(`select id, user_id from kommo_accounts order by id offset (select count(*) / 2 from kommo_accounts) limit 1`)).rows;
  const [{ id: campaign }] = (await client.query(`select id from campaigns order by id limit 1`)).rows;
  const plans: Array<[string, string, unknown[]]> = [
    ['contacts page of one account (per account)', `select id, name, phone from contacts where account_id = $1 order by id limit 20 offset 0`, [account]],
    ['user-scoped listing (per tenant)', `select id from contacts where user_id = $1 order by id limit 100 offset 0`, [user]],
    [
      'count, tag and field filter (per account)',
      `select count(*) from contacts where account_id = $1 and tags && array['etiqueta3'] and custom_fields->>'Plan' = 'Pro'`,
      [account],
    ],
    ['text search count (per account)', `select count(*) from contacts where account_id = $1 and (name ilike '%cliente 12%' or email ilike '%cliente 12%')`, [account]],
    [
      'audience freeze read (per account)',
      `select id, phone from contacts where account_id = $1 and phone is not null order by id`,
      [account],
    ],
    [
      'claim a batch (per campaign)',
      `select id from campaign_recipients where campaign_id = $1 and status = 'pending' order by id limit 50 for update skip locked`,
      [campaign],
    ],
    ['webhook status by wamid (crosses accounts)', `select id, campaign_id from campaign_recipients where wamid = 'wamid.x'`, []],
    ['in-flight sweep (crosses accounts)', `select id from campaign_recipients where status = 'sending' and claimed_at < now() - interval '2 minutes' limit 500`, []],
    ['due scheduled campaigns (crosses accounts)', `select id from campaigns where status = 'scheduled' and scheduled_at <= now() order by scheduled_at limit 20`, []],
    ['inbound opt-out routing (crosses accounts)', `select id, user_id from whatsapp_accounts where phone_number_id = '100500' and owner_verified_at is not null`, []],
  ];
  for (const [title, text, values] of plans) {
    await client.query('begin');
    const res = await client.query(`explain (analyze, buffers, costs off, summary on) ${text}`, values);
    await client.query('rollback');
    console.log(`\n### ${title}\n${res.rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n')}`);
  }
}
