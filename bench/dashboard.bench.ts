/**
 * The charts from their rollups (0051), on PostgreSQL: `--size` sends in all (10,000,000 by
 * default), half of them one tenant's, whose campaigns include one of a tenth of the size (the
 * million-recipient campaign) started a day ago; the rest in campaigns of a fiftieth spread over
 * the last 40 days (some before the dashboard's window). Everything is folded once by the
 * `campaign-rollups` job's pass, then:
 *   - the 30-day dashboard and the big campaign's stats and charts, timed (target p95 < 50 ms),
 *     and checked equal to the answers computed from the recipients as before the rollups;
 *   - the campaign screen's detail (its real cost, estimate and routes come from the rollups too);
 *   - a pass of the job while the big campaign is active: 1,000 of its recipients move through
 *     the real writer (delivery facts) and the pass recounts it, timed without the job's spacing
 *     (a sending campaign is folded at most every 30 s, and only FOLD_GAP times its last fold
 *     after it, so the delay an operator sees is about 30 s plus a pass and the job's 5 s period).
 *
 *   npm run bench -- dashboard [--size 10000000] [--runs 30] [--keep masivo_bench_dashboard]
 *
 * Recipients as a real campaign leaves them (see campaign-stats.bench.ts): sends paced 18 ms
 * apart, 2 % skipped at the freeze, 3 % failed with Meta codes, 95 % of the sent delivered
 * within seconds, 60 % read over the next hours, 5 % replied.
 */
import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import type { Database } from '../server/src/db/client';
import { rowsOf } from '../server/src/db/sql';
import { FOLD_GAP, foldChangedCampaigns, SENDING_FOLD_EVERY_MS } from '../server/src/services/campaigns/campaign-rollups';
import { getCampaign } from '../server/src/services/campaigns/campaign-queries';
import { campaignStats } from '../server/src/services/campaigns/campaign-stats';
import { applyDeliveryFacts } from '../server/src/services/campaigns/recipient-transitions';
import { dashboardActivity } from '../server/src/services/dashboard/activity';
import { campaignStatsFromRecipients, dashboardActivityFromRecipients } from '../server/test/helpers/charts-from-recipients';
import { openBenchDatabase } from './lib/database';
import { fmt, percentileColumns, timeRuns } from './lib/stats';

const { values: args } = parseArgs({
  options: {
    size: { type: 'string', default: '10000000' },
    runs: { type: 'string', default: '30' },
    keep: { type: 'string' },
  },
});
const SIZE = Number(args.size);
const RUNS = Number(args.runs);
const TARGET_MS = 50;
const BIG = Math.floor(SIZE / 10);
const SMALL = Math.max(1, Math.floor(SIZE / 50));
const ZONE = 'America/Bogota';

let phoneBase = 5491100000000;

async function tenant(database: Database, email: string) {
  const { db } = database;
  const [{ id: userId }] = await rowsOf<{ id: number }>(db,
    sql`insert into users (email, password_hash, first_name, last_name) values (${email}, 'x', 'Bench', 'Dashboard') returning id`);
  const numbers: number[] = [];
  for (const name of ['Ventas', 'Soporte', 'Cobranzas']) {
    const [{ id }] = await rowsOf<{ id: number }>(db,
      sql`insert into whatsapp_accounts (user_id, name, phone_number, phone_number_id, access_token_enc, business_account_id)
          values (${userId}, ${name}, '+5491100000000', ${`${email}-${name}`}, 'x', 'waba') returning id`);
    numbers.push(Number(id));
  }
  return { userId: Number(userId), numbers };
}

/** One campaign of `size` recipients started `hoursAgo` hours ago on `number`, inserted in slices. */
async function campaign(database: Database, userId: number, number: number, hoursAgo: number, size: number, status = 'completed'): Promise<number> {
  const { db } = database;
  const [{ id }] = await rowsOf<{ id: number }>(db,
    sql`insert into campaigns (user_id, name, status, filters, whatsapp_account_id, started_at, total_recipients)
        values (${userId}, ${`Bench ${hoursAgo} h`}, ${status}, '{}'::jsonb, ${number}, now() - make_interval(hours => ${hoursAgo}::int), ${size})
        returning id`);
  const campaignId = Number(id);
  const base = phoneBase;
  phoneBase += size;
  for (let from = 1; from <= size; from += 500_000) {
    const to = Math.min(size, from + 499_999);
    await db.execute(sql`
      insert into campaign_recipients (campaign_id, user_id, phone, phone_key, status, attempts, sent_at, delivered_at,
        read_at, failed_at, replied_at, error_code, error_message, pricing_category, pricing_type, pricing_model)
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
        case when g % 33 = 0 and g % 50 <> 0 then 'bench failure' end,
        -- Meta's pricing on the delivered (a few free entry points), as their status webhooks report it.
        case when g % 50 <> 0 and g % 33 <> 0 and g % 20 <> 1 then 'marketing' end,
        case when g % 50 <> 0 and g % 33 <> 0 and g % 20 <> 1 then (case when g % 97 = 0 then 'free_entry_point' else 'regular' end) end,
        case when g % 50 <> 0 and g % 33 <> 0 and g % 20 <> 1 then 'PMP' end
      from generate_series(${from}::int, ${to}::int) g,
        lateral (select (${base}::bigint + g)::text as k, now() - make_interval(hours => ${hoursAgo}::int) as t0) x`);
  }
  return campaignId;
}

const time = (run: () => Promise<unknown>, runs = RUNS) => timeRuns(run, { runs });
const strip = <T extends { folded_at: string | null }>({ folded_at: _, ...rest }: T) => rest;

const bench = await openBenchDatabase('postgres', 'masivo_bench_dashboard', { keep: args.keep });
const { database } = bench;
try {
  const { db } = database;
  let mine: { userId: number; numbers: number[] };
  let big: number;
  const [seeded] = await rowsOf<{ n: number }>(db, sql`select count(*)::int as n from users where email = 'dashboard@bench.test'`);
  if (Number(seeded!.n) > 0) {
    const [u] = await rowsOf<{ id: number }>(db, sql`select id from users where email = 'dashboard@bench.test'`);
    const [c] = await rowsOf<{ id: number }>(db, sql`select id from campaigns where user_id = ${u!.id} and status = 'sending'`);
    mine = { userId: Number(u!.id), numbers: [] };
    big = Number(c!.id);
    console.log('PostgreSQL: the kept database, seeded before');
  } else {
    const started = Date.now();
    mine = await tenant(database, 'dashboard@bench.test');
    const theirs = await tenant(database, 'other@bench.test');
    // The big campaign is still sending (the fold pass is timed on it), started a day ago.
    big = await campaign(database, mine.userId, mine.numbers[0]!, 24, BIG, 'sending');
    const smallPerTenant = Math.round((SIZE / 2 - BIG) / SMALL);
    for (let i = 0; i < smallPerTenant; i++) await campaign(database, mine.userId, mine.numbers[i % 3]!, 2 + Math.floor((i * 40 * 24) / smallPerTenant), SMALL);
    for (let i = 0; i < Math.round(SIZE / 2 / SMALL); i++) await campaign(database, theirs.userId, theirs.numbers[i % 3]!, 3 + Math.floor((i * 40 * 24) / (SIZE / 2 / SMALL)), SMALL);
    await db.execute(sql`vacuum (analyze) campaign_recipients, campaigns, whatsapp_accounts`);
    const [n] = await rowsOf<{ n: number }>(db, sql`select count(*)::int as n from campaign_recipients`);
    console.log(`PostgreSQL: ${fmt(Number(n!.n))} recipients (${fmt(SIZE / 2)} of one tenant, a campaign of ${fmt(BIG)}) loaded in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  }

  // The job's first pass folds every campaign.
  const first = await foldChangedCampaigns(db);
  console.log(`first pass of the job: ${first.folded} campaigns folded in ${(first.ms / 1000).toFixed(1)} s`);
  await db.execute(sql`analyze campaign_rollups, campaign_rollup_minutes, campaign_rollup_quarters, campaign_rollup_failures`);

  // The answers equal those computed from the recipients as before the rollups.
  const stats = await campaignStats(db, mine.userId, big, { tz: ZONE });
  const activity = await dashboardActivity(db, mine.userId, { tz: ZONE, days: 30 });
  let t0 = performance.now();
  const rawStats = await campaignStatsFromRecipients(db, mine.userId, big, { tz: ZONE });
  const rawStatsMs = performance.now() - t0;
  t0 = performance.now();
  const rawActivity = await dashboardActivityFromRecipients(db, mine.userId, { tz: ZONE, days: 30 });
  const rawActivityMs = performance.now() - t0;
  const same = JSON.stringify(strip(stats)) === JSON.stringify(rawStats) && JSON.stringify(strip(activity)) === JSON.stringify(rawActivity);
  if (!same) throw new Error('the rollups do not answer as the recipients do');

  const statsTimes = await time(() => campaignStats(db, mine.userId, big, { tz: ZONE }));
  const dashTimes = await time(() => dashboardActivity(db, mine.userId, { tz: ZONE, days: 30 }));
  const sent30 = activity.numbers.reduce((s, n) => s + n.days.reduce((a, d) => a + d.sent, 0), 0);
  // The campaign screen itself (its real cost, estimate and routes, 0053), from the rollups, and
  // once as a campaign not folded yet is read: from its recipients.
  const detailTimes = await time(() => getCampaign(db, mine.userId, big));
  await db.execute(sql`update campaign_rollups set costs_folded = false where campaign_id = ${big}`);
  t0 = performance.now();
  const rawDetail = await getCampaign(db, mine.userId, big);
  const rawDetailMs = performance.now() - t0;
  await db.execute(sql`update campaign_rollups set costs_folded = true where campaign_id = ${big}`);
  const detail = await getCampaign(db, mine.userId, big);
  if (JSON.stringify({ ...detail.actual_cost, as_of: null }) !== JSON.stringify(rawDetail.actual_cost)) throw new Error('the cost from the rollups differs from its recipients');

  // An active big campaign: 1,000 of its recipients move (the real writer bumps the campaign), then one pass.
  const passes: number[] = [];
  for (let i = 0; i < 5; i++) {
    const moving = await rowsOf<{ id: number }>(db,
      sql`select id::int as id from campaign_recipients where campaign_id = ${big} and status in ('sent', 'delivered') limit 1000`);
    await applyDeliveryFacts(db, moving.map((r) => ({ recipientId: Number(r.id), readAt: new Date().toISOString() })));
    // Timed without the spacing of a campaign's folds (FOLD_GAP), which would skip it for about three folds' time.
    const pass = await foldChangedCampaigns(db, { gap: 0 });
    if (pass.folded !== 1) throw new Error(`expected the big campaign alone to be folded, got ${pass.folded}`);
    passes.push(pass.ms);
  }
  const after = await campaignStats(db, mine.userId, big, { tz: ZONE });
  if (JSON.stringify(strip(after)) !== JSON.stringify(await campaignStatsFromRecipients(db, mine.userId, big, { tz: ZONE })))
    throw new Error('the big campaign after its passes differs from its recipients');

  console.table([
    {
      scenario: `campaign stats and charts, ${fmt(BIG)} recipients`,
      result: `${stats.timeline.length} points of ${stats.bucket_minutes} min, funnel ${Object.values(stats.funnel).join('/')}, ${stats.failures.length} codes`,
      ...percentileColumns('', statsTimes, TARGET_MS, { p99: false }),
      'from recipients (once)': +rawStatsMs.toFixed(0),
    },
    {
      scenario: `dashboard 30 days, tenant of ${fmt(SIZE / 2)} of ${fmt(SIZE)} sends`,
      result: `${activity.numbers.length} numbers, ${fmt(sent30)} sent in the window`,
      ...percentileColumns('', dashTimes, TARGET_MS, { p99: false }),
      'from recipients (once)': +rawActivityMs.toFixed(0),
    },
    {
      scenario: `campaign screen (detail with its real cost), ${fmt(BIG)} recipients`,
      result: `${fmt(detail.actual_cost?.priced ?? 0)} priced, ${detail.actual_cost?.lines.length ?? 0} cost lines`,
      ...percentileColumns('', detailTimes, TARGET_MS, { p99: false }),
      'from recipients (once)': +rawDetailMs.toFixed(0),
    },
  ]);
  console.log(`ms over ${RUNS} runs after 2 warm-ups; target p95 < ${TARGET_MS} ms; all equal the answers computed from the recipients`);
  console.log(
    `fold pass with the ${fmt(BIG)}-recipient campaign active (1,000 recipients moved before each): ` +
      `${passes.map((p) => (p / 1000).toFixed(2)).join(', ')} s; while it sends the job folds it at most every ${SENDING_FOLD_EVERY_MS / 1000} s ` +
      `and only ${FOLD_GAP} times its last fold after it, so its charts lag by about ${SENDING_FOLD_EVERY_MS / 1000} s plus a pass and the 5 s period at worst`,
  );
} finally {
  await bench.close();
}
