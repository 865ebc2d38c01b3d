/**
 * The charts: a campaign's stats (timeline, funnel, failures by code) and the
 * dashboard's 30 days per number, on PostgreSQL. Since 0051 both read rollups: the first call
 * folds every campaign never folded (on demand), the timed runs read the rollups (the figures at
 * 10,000,000 sends and the fold's cost are dashboard.bench.ts's). With
 *   - a campaign of 100,000 recipients (target p95 < 300 ms for its stats);
 *   - beside it, 4 more campaigns of the same tenant in the last 30 days, 2 older ones (60 and
 *     120 days ago) and 2 of another tenant, 100,000 recipients each (dashboard target p95 < 300 ms).
 *
 *   npx tsx bench/campaign-stats.bench.ts [--size 100000] [--runs 20] [--explain]
 *
 * Recipients as a real campaign leaves them: sends paced over about half an hour, 2 % skipped
 * at the freeze, 3 % failed with Meta codes, 95 % of the sent delivered within seconds, 60 %
 * read over the next hours, 5 % replied.
 */
import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import type { Database } from '../server/src/db/client';
import { rowsOf } from '../server/src/db/sql';
import { campaignStats } from '../server/src/services/campaigns/campaign-stats';
import { dashboardActivity } from '../server/src/services/dashboard/activity';
import { openBenchDatabase } from './lib/database';
import { percentileColumns, timeRuns } from './lib/stats';

const { values: args } = parseArgs({
  options: {
    size: { type: 'string', default: '100000' },
    runs: { type: 'string', default: '20' },
    explain: { type: 'boolean', default: false },
    'skip-pglite': { type: 'boolean', default: false },
  },
});
const SIZE = Number(args.size);
const RUNS = Number(args.runs);
const TARGET_MS = 300;

async function tenant(database: Database, email: string) {
  const { db } = database;
  const [{ id: userId }] = await rowsOf<{ id: number }>(db,
    sql`insert into users (email, password_hash, first_name, last_name) values (${email}, 'x', 'Bench', 'Stats') returning id`);
  const numbers: number[] = [];
  for (const name of ['Ventas', 'Soporte']) {
    const [{ id }] = await rowsOf<{ id: number }>(db,
      sql`insert into whatsapp_accounts (user_id, name, phone_number, phone_number_id, access_token_enc, business_account_id)
          values (${userId}, ${name}, '+5491100000000', ${`${email}-${name}`}, 'x', 'waba') returning id`);
    numbers.push(Number(id));
  }
  return { userId: Number(userId), numbers };
}

/** One campaign of `size` recipients started `daysAgo` days ago on `number`. */
async function campaign(database: Database, userId: number, number: number, daysAgo: number, size: number): Promise<number> {
  const { db } = database;
  const [{ id }] = await rowsOf<{ id: number }>(db,
    sql`insert into campaigns (user_id, name, status, filters, whatsapp_account_id, started_at)
        values (${userId}, ${`Bench ${daysAgo}`}, 'completed', '{}'::jsonb, ${number}, now() - make_interval(days => ${daysAgo}::int))
        returning id`);
  const campaignId = Number(id);
  await db.execute(sql`
    insert into campaign_recipients (campaign_id, user_id, phone, phone_key, status, attempts, sent_at, delivered_at,
      read_at, failed_at, replied_at, error_code, error_message)
    select ${campaignId}, ${userId}, '+' || k, k,
      case when g % 50 = 0 then 'skipped' when g % 33 = 0 then 'failed' when g % 5 < 3 then 'read'
           when g % 20 = 1 then 'sent' else 'delivered' end,
      case when g % 50 = 0 then 0 else 1 end,
      case when g % 50 = 0 or g % 33 = 0 then null else t0 + g * interval '18 ms' end,
      case when g % 50 = 0 or g % 33 = 0 or g % 20 = 1 then null else t0 + g * interval '18 ms' + interval '2 s' end,
      case when g % 50 <> 0 and g % 33 <> 0 and g % 5 < 3 and g % 20 <> 1 then t0 + g * interval '18 ms' + (g % 240) * interval '1 minute' end,
      case when g % 33 = 0 and g % 50 <> 0 then t0 + g * interval '18 ms' end,
      case when g % 20 = 4 and g % 50 <> 0 and g % 33 <> 0 then t0 + g * interval '18 ms' + interval '10 minutes' end,
      case when g % 33 = 0 and g % 50 <> 0 then (array[131026, 131049, 131050, 131047, 130429])[1 + (g / 33) % 5] end,
      case when g % 33 = 0 and g % 50 <> 0 then 'bench failure' end
    from generate_series(1, ${size}::int) g,
      lateral (select (5491100000000 + g)::text as k, now() - make_interval(days => ${daysAgo}::int) as t0) x`);
  return campaignId;
}

/** Timed RUNS times after two warm-up calls. */
const time = (run: () => Promise<unknown>) => timeRuns(run, { runs: RUNS });

const pgBench = await openBenchDatabase('postgres', 'masivo_bench_stats');
const { database } = pgBench;
try {
  const started = Date.now();
  const mine = await tenant(database, 'stats@bench.test');
  const theirs = await tenant(database, 'other@bench.test');
  const big = await campaign(database, mine.userId, mine.numbers[0]!, 1, SIZE);
  for (const [i, daysAgo] of [3, 8, 15, 27, 60, 120].entries()) await campaign(database, mine.userId, mine.numbers[i % 2]!, daysAgo, SIZE);
  for (const daysAgo of [2, 20]) await campaign(database, theirs.userId, theirs.numbers[0]!, daysAgo, SIZE);
  await database.db.execute(sql`vacuum (analyze) campaign_recipients, campaigns, whatsapp_accounts`);
  console.log(`PostgreSQL: 9 campaigns × ${SIZE.toLocaleString('en')} recipients loaded in ${((Date.now() - started) / 1000).toFixed(0)} s`);

  const stats = await campaignStats(database.db, mine.userId, big, { tz: 'America/Bogota' });
  const activity = await dashboardActivity(database.db, mine.userId, { tz: 'America/Bogota', days: 30 });
  const statsTimes = await time(() => campaignStats(database.db, mine.userId, big, { tz: 'America/Bogota' }));
  const dashTimes = await time(() => dashboardActivity(database.db, mine.userId, { tz: 'America/Bogota', days: 30 }));
  const sent30 = activity.numbers.reduce((s, n) => s + n.days.reduce((a, d) => a + d.sent, 0), 0);
  const rows = [
    {
      scenario: `campaign stats, ${SIZE.toLocaleString('en')} recipients`,
      result: `${stats.timeline.length} points of ${stats.bucket_minutes} min, funnel ${Object.values(stats.funnel).join('/')}, ${stats.failures.length} codes`,
      ...percentileColumns('', statsTimes, TARGET_MS, { p99: false }),
    },
    {
      scenario: `dashboard 30 days, ${(5 * SIZE).toLocaleString('en')} of the tenant's ${(7 * SIZE).toLocaleString('en')} recipients`,
      result: `${activity.numbers.length} numbers, ${sent30.toLocaleString('en')} sent`,
      ...percentileColumns('', dashTimes, TARGET_MS, { p99: false }),
    },
  ];
  console.table(rows);
  console.log(`ms over ${RUNS} runs after 2 warm-ups; target p95 < ${TARGET_MS} ms`);

  if (args.explain) {
    const plan = async (label: string, q: ReturnType<typeof sql>) => {
      const lines = await rowsOf<{ 'QUERY PLAN': string }>(database.db, sql`explain (analyze, buffers) ${q}`);
      console.log(`\n${label}\n${lines.map((l) => l['QUERY PLAN']).join('\n')}`);
    };
    await plan('funnel pass', sql`select count(*) filter (where not (r.status = 'skipped' and r.attempts = 0)), count(r.sent_at), count(r.read_at),
      count(r.replied_at), min(r.sent_at), max(r.read_at) from campaign_recipients r where r.campaign_id = ${big} and r.user_id = ${mine.userId}`);
    await plan('dashboard sends', sql`select r.campaign_id, date_bin('15 minutes', r.sent_at, timestamptz '2000-01-01 00:00:00+00'), count(*),
      count(r.read_at) from campaign_recipients r
      where r.user_id = ${mine.userId} and r.sent_at >= now() - interval '30 days' group by 1, 2`);
    await database.db.transaction(async (tx) => {
      await tx.execute(sql`set local enable_seqscan = off`);
      const lines = await rowsOf<{ 'QUERY PLAN': string }>(tx, sql`explain (analyze, buffers) select r.campaign_id, date_bin('15 minutes', r.sent_at, timestamptz '2000-01-01 00:00:00+00'), count(*),
        count(r.read_at) from campaign_recipients r
        where r.user_id = ${mine.userId} and r.sent_at >= now() - interval '30 days' group by 1, 2`);
      console.log(`\ndashboard sends, index forced\n${lines.map((l) => l['QUERY PLAN']).join('\n')}`);
    });
    await plan('dashboard failures', sql`select r.campaign_id, date_bin('15 minutes', r.failed_at, timestamptz '2000-01-01 00:00:00+00'), count(*)
      from campaign_recipients r
      where r.user_id = ${mine.userId} and r.status = 'failed' and r.failed_at >= now() - interval '30 days' group by 1, 2`);
  }
} finally {
  await pgBench.close();
}

/** The embedded database runs on the event loop: the same campaign there, to know what a viewer costs the process. */
if (!args['skip-pglite']) {
  const liteBench = await openBenchDatabase('pglite', 'masivo_bench_stats');
  const lite = liteBench.database;
  try {
    const mine = await tenant(lite, 'stats@bench.test');
    const big = await campaign(lite, mine.userId, mine.numbers[0]!, 1, SIZE);
    await lite.db.execute(sql`analyze campaign_recipients`);
    const statsTimes = await time(() => campaignStats(lite.db, mine.userId, big, { tz: 'America/Bogota' }));
    const dashTimes = await time(() => dashboardActivity(lite.db, mine.userId, { tz: 'America/Bogota', days: 30 }));
    console.log('\nPGlite (embedded), the same campaign alone');
    console.table([
      { scenario: `campaign stats, ${SIZE.toLocaleString('en')} recipients`, ...percentileColumns('', statsTimes, undefined, { p99: false }) },
      { scenario: `dashboard 30 days, ${SIZE.toLocaleString('en')} recipients`, ...percentileColumns('', dashTimes, undefined, { p99: false }) },
    ]);
    console.log('ms; no target: reported because PGlite blocks the event loop while it runs');
  } finally {
    await liteBench.close();
  }
}
