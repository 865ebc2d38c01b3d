/**
 * The pre-flight: every matched contact classified (valid phone, duplicate,
 * blacklist/opt-out, US marketing, frequency cap), the attempted grouped by country, the
 * budget, ETA and cost, on
 *   - PostgreSQL with 1,000,000 contacts in one account (target p95 < 300 ms);
 *   - embedded PGlite with 200,000 contacts (target p95 < 500 ms).
 *
 *   npx tsx bench/preflight.bench.ts [--pg-size 1000000] [--pglite-size 200000] [--runs 10] [--skip-pg] [--skip-pglite]
 *     [--pg-keep NAME]   (PostgreSQL: load into database NAME once and keep it; later runs reuse it)
 *     [--only REGEX]     (measure only the scenarios whose name matches, e.g. --only "without|tags OR")
 *
 * Contacts come from bench/seed-contacts.ts (the contacts bench's data). Besides them: a
 * marketing template, 1 % of the people on the blacklist, 0.5 % opted out, the frequency cap
 * on (2 in 7 days) with 2 % of the people already messaged twice.
 */
import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import { countScenarios } from '../simulators/src/data/index';
import type { Database } from '../server/src/db/client';
import type { ContactFilter } from '../contract/src/contact-filter';
import { rowsOf } from '../server/src/db/sql';
import { runPreflight } from '../server/src/services/campaigns/preflight';
import { openBenchDatabase } from './lib/database';
import { percentile, percentileColumns, timeRuns } from './lib/stats';
import { load, SEED } from './seed-contacts';

const { values: args } = parseArgs({
  options: {
    'pg-size': { type: 'string', default: '1000000' },
    'pglite-size': { type: 'string', default: '200000' },
    runs: { type: 'string', default: '10' },
    'skip-pg': { type: 'boolean', default: false },
    'skip-pglite': { type: 'boolean', default: false },
    'pg-keep': { type: 'string' },
    only: { type: 'string' },
  },
});
const RUNS = Number(args.runs);

const EMPTY: ContactFilter = { searchQuery: '', tags: [], tagOperator: 'OR', excludedTags: [], customFieldFilters: {} };
const only = args.only ? new RegExp(args.only) : null;

/** The account's number, its marketing template, blacklist, opt-outs, the cap and past sends. */
async function world(database: Database, ids: { userId: number; accountId: number }) {
  const { db } = database;
  const [{ id: whatsappAccountId }] = await rowsOf<{ id: number }>(db,
    sql`insert into whatsapp_accounts (user_id, name, phone_number, phone_number_id, access_token_enc, business_account_id, daily_limit)
        values (${ids.userId}, 'Bench', '+5491100000000', 'bench-pn', 'x', 'bench-waba', 100000) returning id`);
  const [{ id: templateId }] = await rowsOf<{ id: number }>(db,
    sql`insert into templates (user_id, whatsapp_account_id, name, language, category, status, components)
        values (${ids.userId}, ${whatsappAccountId}, 'promo', 'es', 'MARKETING', 'approved',
          '[{"type":"BODY","text":"Hola, tenemos una oferta."}]'::jsonb) returning id`);
  const keyOf = sql.raw(`case when regexp_replace(phone, '[^0-9]', '', 'g') ~ '^549[0-9]{10}$' then '54' || substr(regexp_replace(phone, '[^0-9]', '', 'g'), 4)
      when regexp_replace(phone, '[^0-9]', '', 'g') ~ '^521[0-9]{10}$' then '52' || substr(regexp_replace(phone, '[^0-9]', '', 'g'), 4)
      else regexp_replace(phone, '[^0-9]', '', 'g') end`);
  await db.execute(sql`insert into blacklist (user_id, account_id, phone, phone_key, reason)
    select distinct on (k) ${ids.userId}, ${ids.accountId}, phone, k, 'bench' from
      (select phone, ${keyOf} as k from contacts where account_id = ${ids.accountId} and phone is not null and id % 100 = 7) x`);
  await db.execute(sql`insert into opt_outs (user_id, phone_key, phone, word)
    select distinct on (k) ${ids.userId}, k, phone, 'BAJA' from
      (select phone, ${keyOf} as k from contacts where account_id = ${ids.accountId} and phone is not null and id % 200 = 11) x
    on conflict do nothing`);
  await db.execute(sql`insert into frequency_caps (user_id, max_messages, days) values (${ids.userId}, 2, 7)`);
  for (let n = 0; n < 2; n++) {
    const [{ id: campaignId }] = await rowsOf<{ id: number }>(db,
      sql`insert into campaigns (user_id, name, status, kommo_account_id, whatsapp_account_id, template_id)
          values (${ids.userId}, ${`Anterior ${n}`}, 'completed', ${ids.accountId}, ${whatsappAccountId}, ${templateId}) returning id`);
    await db.execute(sql`insert into campaign_recipients (campaign_id, user_id, phone, phone_key, status, sent_at)
      select distinct on (k) ${campaignId}, ${ids.userId}, phone, k, 'sent', now() - interval '2 days' from
        (select phone, ${keyOf} as k from contacts where account_id = ${ids.accountId} and phone is not null and id % 50 = 3) x`);
  }
  await db.execute(sql`vacuum (analyze) blacklist, opt_outs, campaign_recipients, campaigns, templates`);
  return { whatsappAccountId, templateId };
}


/** The world of an earlier run kept in the database (--pg-keep), or a new one. */
async function worldOnce(database: Database, ids: { userId: number; accountId: number }) {
  const [kept] = await rowsOf<{ whatsapp_account_id: number; id: number }>(database.db,
    sql`select whatsapp_account_id, id from templates where user_id = ${ids.userId} and name = 'promo'`);
  return kept ? { whatsappAccountId: kept.whatsapp_account_id, templateId: kept.id } : world(database, ids);
}

async function measure(label: string, database: Database, ids: { userId: number; accountId: number }, target: number) {
  const w = await worldOnce(database, ids);
  console.log(`\n${label}`);
  // Besides "every contact", the count scenarios of tags, a field, the combined filter and the excluded tags.
  const scenarios = ([
    ['every contact', EMPTY],
    ...countScenarios(SEED)
      .filter(([name]) => /tags OR|combined|Plan=Pro|without/.test(name))
      .map(([name, f]) => [name, { ...EMPTY, ...f } as ContactFilter] as [string, ContactFilter]),
  ] as Array<[string, ContactFilter]>).filter(([name]) => !only || only.test(name));
  const rows: Record<string, string | number>[] = [];
  let ok = true;
  for (const [name, filters] of scenarios) {
    const run = () =>
      runPreflight(database.db, ids.userId, { kommoAccountId: ids.accountId, whatsappAccountId: w.whatsappAccountId, templateId: w.templateId, filters, startAt: null });
    // The first call (a warm-up) gives the counts by reason; one more warm-up, then RUNS timed.
    const first = await run();
    const times = await timeRuns(run, { runs: RUNS, warmups: 1 });
    ok &&= percentile(times, 0.95) < target;
    const ex = Object.fromEntries(first.excluded.map((e) => [e.reason, e.count]));
    rows.push({
      scenario: name,
      matched: first.matched,
      attempted: first.attempted,
      'invalid/dup/black/cap/US': `${ex.invalid_phone}/${ex.duplicate}/${ex.blacklisted}/${ex.frequency_cap}/${ex.us_marketing}`,
      ...percentileColumns('', times, target),
    });
  }
  console.table(rows);
  console.log(`ms over ${RUNS} runs after 2 warm-ups; target p95 < ${target} ms → ${ok ? 'all met' : 'NOT all met'}`);
}

async function benchPostgres(size: number) {
  const t = Date.now();
  // --pg-keep: a plain database name, created if missing, reused if there, never dropped.
  const bench = await openBenchDatabase('postgres', 'masivo_bench_preflight', { keep: args['pg-keep'] });
  const { database, name, applied } = bench;
  try {
    if (applied.length) {
      // A kept database migrated now: as after the load, autovacuum's pass (visibility map, statistics).
      await database.db.execute(sql`vacuum (analyze) contacts`);
      console.log(`PostgreSQL: migrations ${applied.join(', ')} then VACUUM (ANALYZE) in ${((Date.now() - t) / 1000).toFixed(0)} s`);
    }
    const [kept] = await rowsOf<{ user_id: number; id: number; n: number }>(database.db,
      sql`select a.user_id, a.id, (select count(*)::int from contacts c where c.account_id = a.id) as n from kommo_accounts a where a.subdomain = 'bench'`);
    let ids: { userId: number; accountId: number };
    if (kept && Number(kept.n) === size) {
      ids = { userId: kept.user_id, accountId: kept.id };
      console.log(`PostgreSQL: reusing ${size.toLocaleString('en')} contacts of ${name}`);
    } else {
      if (kept) throw new Error(`${name} holds ${kept.n} contacts, not ${size}`);
      console.log(`PostgreSQL: loading ${size.toLocaleString('en')} contacts...`);
      ids = await load(database, size);
    }
    await measure(`PostgreSQL, ${size.toLocaleString('en')} contacts in one account`, database, ids, 300);
  } finally {
    await bench.close();
  }
}

async function benchPglite(size: number) {
  const bench = await openBenchDatabase('pglite', 'masivo_bench_preflight');
  const { database } = bench;
  try {
    console.log(`\nPGlite: loading ${size.toLocaleString('en')} contacts...`);
    const ids = await load(database, size);
    await measure(`PGlite (embedded), ${size.toLocaleString('en')} contacts`, database, ids, 500);
  } finally {
    await bench.close();
  }
}

if (!args['skip-pg']) await benchPostgres(Number(args['pg-size']));
if (!args['skip-pglite']) await benchPglite(Number(args['pglite-size']));
