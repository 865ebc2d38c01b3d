import { sql, type SQL } from 'drizzle-orm';
import { allowLongStatements, type Db, type Tx } from '../../db/client';
import { changeMark, ROLLUP_JOB } from '../../db/rollup-mark';
import { isoOf, rowsOf } from '../../db/sql';
import { ROUTE_MARKETING } from '../../integrations/whatsapp/marketing-messages';
import { attemptedCountriesSql, deliveredGroupsSql } from './campaign-cost-groups';

/**
 * The charts' rollups (0051), kept OFF the send path: no trigger on campaign_recipients, no
 * extra write by the claim, the sender, the result writer or the inbox. A periodic job (the
 * `campaign-rollups` job, engine/campaign-rollups.ts) finds the campaigns whose recipients
 * changed through the campaign row the writers already bump in the same statement as every
 * recipient transition (`updated_at` and the counters, recipient-transitions.ts; replies bump
 * `replied_count`, inbound-replies.ts), and recounts each such campaign from its rows in one
 * transaction: a crash mid-fold leaves the previous, consistent rollup.
 *
 * What is kept is what the charts answer (campaign-stats.ts, dashboard/activity.ts):
 *  - campaign_rollups: the funnel, the first and last event (the timeline's span), the change
 *    mark folded and when;
 *  - campaign_rollup_minutes: sends, deliveries and reads per UTC minute (the timeline);
 *  - campaign_rollup_quarters: per quarter hour, the sends with how many were delivered and
 *    read since, and the failures (the dashboard, whose local days start on quarter hours);
 *  - campaign_rollup_failures: failures per Meta error code;
 *  - campaign_rollup_costs and campaign_rollup_countries (0053): the delivered messages per what
 *    prices them and arm, the attempted per country, and on campaign_rollups the messages per
 *    route: the campaign screen's real cost, its estimate and its routes (campaign-cost.ts,
 *    campaign-marketing.ts).
 */

/** The steps of a fold, named for tests that abort it at each. */
export type FoldStep = 'locked' | 'cleared' | 'funnel' | 'minutes' | 'quarters' | 'failures' | 'costs' | 'countries';

export interface FoldOptions {
  /** Called inside the fold's transaction after each step (tests throw here to abort it). */
  onStep?: (step: FoldStep) => void | Promise<void>;
}

const ORIGIN = sql`timestamptz '2000-01-01 00:00:00+00'`;
const quarterOf = (col: SQL) => sql`date_bin('15 minutes', ${col}, ${ORIGIN})`;

/**
 * Recounts one campaign's rollups from its recipients, in one transaction. The change mark is
 * read first, so a write committed during the recount is either counted or leaves a mark that
 * differs (folded again at the next pass), never lost. Two folds of one campaign (the job and a
 * reader folding a campaign never folded) take turns on an advisory lock. Returns false when
 * the campaign no longer exists. Read committed, on purpose: a fold waiting on the lock must see
 * the rows the other one wrote; a write landing between two of its statements moved the mark,
 * so the campaign is folded again at the next pass.
 */
export async function foldCampaign(db: Db, campaignId: number, opts: FoldOptions = {}): Promise<boolean> {
  const step = async (name: FoldStep) => {
    await opts.onStep?.(name);
  };
  return db.transaction(async (tx) => {
    await allowLongStatements(tx, 10 * 60_000);
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${ROLLUP_JOB}), ${campaignId}::int)`);
    const [c] = await rowsOf<{ user_id: number; mark: string }>(
      tx,
      sql`select c.user_id, ${changeMark(sql`c`)} as mark from campaigns c where c.id = ${campaignId}`,
    );
    await step('locked');
    if (!c) {
      await tx.execute(sql`delete from campaign_rollups where campaign_id = ${campaignId}`);
      return false;
    }
    const userId = Number(c.user_id);
    const mine = sql`r.campaign_id = ${campaignId} and r.user_id = ${userId}::int`;
    await tx.execute(sql`delete from campaign_rollup_minutes where campaign_id = ${campaignId}`);
    await tx.execute(sql`delete from campaign_rollup_quarters where campaign_id = ${campaignId}`);
    await tx.execute(sql`delete from campaign_rollup_failures where campaign_id = ${campaignId}`);
    await tx.execute(sql`delete from campaign_rollup_costs where campaign_id = ${campaignId}`);
    await tx.execute(sql`delete from campaign_rollup_countries where campaign_id = ${campaignId}`);
    await step('cleared');
    await tx.execute(sql`
      insert into campaign_rollups (campaign_id, user_id, attempted, sent, delivered, read, replied, first_at, last_at, source_mark, folded_at,
        routed_marketing, routed_cloud, costs_folded)
      select ${campaignId}, ${userId},
        (count(*) filter (where not (r.status = 'skipped' and r.attempts = 0)))::int,
        count(coalesce(r.sent_at, r.delivered_at, r.read_at))::int,
        count(coalesce(r.delivered_at, r.read_at))::int,
        count(r.read_at)::int,
        count(r.replied_at)::int,
        least(min(r.sent_at), min(r.delivered_at), min(r.read_at)),
        greatest(max(r.sent_at), max(r.delivered_at), max(r.read_at)),
        ${c.mark}, now(),
        (count(*) filter (where r.route = ${ROUTE_MARKETING}))::int,
        (count(*) filter (where r.route is distinct from ${ROUTE_MARKETING} and r.sent_at is not null))::int,
        true
      from campaign_recipients r where ${mine}
      on conflict (campaign_id) do update set user_id = excluded.user_id, attempted = excluded.attempted, sent = excluded.sent,
        delivered = excluded.delivered, read = excluded.read, replied = excluded.replied, first_at = excluded.first_at,
        last_at = excluded.last_at, source_mark = excluded.source_mark, folded_at = excluded.folded_at,
        routed_marketing = excluded.routed_marketing, routed_cloud = excluded.routed_cloud, costs_folded = excluded.costs_folded`);
    await step('funnel');
    await tx.execute(sql`
      insert into campaign_rollup_minutes (campaign_id, minute, sent, delivered, read)
      select ${campaignId}, date_bin('1 minute', e.ts, ${ORIGIN}) as m,
        (count(*) filter (where e.kind = 1))::int, (count(*) filter (where e.kind = 2))::int, (count(*) filter (where e.kind = 3))::int
      from campaign_recipients r
      cross join lateral (values (r.sent_at, 1), (r.delivered_at, 2), (r.read_at, 3)) as e(ts, kind)
      where ${mine} and e.ts is not null
      group by 2`);
    await step('minutes');
    await tx.execute(sql`
      insert into campaign_rollup_quarters (campaign_id, user_id, quarter, sent, delivered, read, failed)
      select ${campaignId}, ${userId}, u.q, sum(u.sent)::int, sum(u.delivered)::int, sum(u.read)::int, sum(u.failed)::int
      from (
        select ${quarterOf(sql`r.sent_at`)} as q, count(*)::int as sent,
          count(coalesce(r.delivered_at, r.read_at))::int as delivered, count(r.read_at)::int as read, 0 as failed
        from campaign_recipients r where ${mine} and r.sent_at is not null group by 1
        union all
        select ${quarterOf(sql`r.failed_at`)}, 0, 0, 0, count(*)::int
        from campaign_recipients r where ${mine} and r.status = 'failed' and r.failed_at is not null group by 1
      ) u group by u.q`);
    await step('quarters');
    await tx.execute(sql`
      insert into campaign_rollup_failures (campaign_id, error_code, failures, message)
      select ${campaignId}, r.error_code, count(*)::int, min(r.error_message)
      from campaign_recipients r where ${mine} and r.status = 'failed'
      group by r.error_code`);
    await step('failures');
    // The campaign screen's real cost and its estimate (campaign-cost.ts reads these when folded).
    await tx.execute(sql`
      insert into campaign_rollup_costs (campaign_id, variant, category, type, model, country, sample, day, n)
      select ${campaignId}, g.variant, g.category, g.type, g.model, g.country, g.sample, g.day, g.n
      from (${deliveredGroupsSql(campaignId, userId)}) g`);
    await step('costs');
    await tx.execute(sql`
      insert into campaign_rollup_countries (campaign_id, country, sample, n)
      select ${campaignId}, g.country, g.sample, g.n from (${attemptedCountriesSql(campaignId, userId)}) g`);
    await step('countries');
    // now() is the transaction's start: the fold's own time, which spaces its next fold (FOLD_GAP).
    await tx.execute(sql`update campaign_rollups set fold_ms = (extract(epoch from clock_timestamp() - now()) * 1000)::int
      where campaign_id = ${campaignId}`);
    return true;
  });
}

/**
 * A campaign is folded again only once FOLD_GAP times its last fold's duration has passed since
 * that fold ended: a big campaign that is sending (a million recipients recount in about 1.5–3.5
 * s) is then folded at most a quarter of the time, so the job never takes more than that share of
 * a core from the senders, and its charts lag by about four folds at worst; a small one (a tenth
 * of a second per 50,000 recipients) is folded at every pass.
 */
export const FOLD_GAP = 3;

/**
 * A campaign that is sending is folded at most this often (counted from its start when never
 * folded; a viewer's request folds a never-folded one on demand): its fold reads the pages the
 * sender's writers are updating, and on a machine the senders saturate that time is theirs.
 */
export const SENDING_FOLD_EVERY_MS = 30_000;

/** The campaigns whose recipients may have moved since their last fold (or never folded) and are due, oldest id first. */
export async function campaignsToFold(db: Db, opts: { gap?: number } = {}): Promise<{ ids: number[]; at: string }> {
  const gap = opts.gap ?? FOLD_GAP;
  const rows = await rowsOf<{ id: number | null; at: string }>(
    db,
    sql`select x.id, ${isoOf(sql`now()`)} as at from (select 1) one
        left join (
          select c.id from campaigns c left join campaign_rollups r on r.campaign_id = c.id
          where (r.campaign_id is null
              ${gap > 0 ? sql`and (c.status <> 'sending' or c.started_at is null or c.started_at <= now() - make_interval(secs => ${SENDING_FOLD_EVERY_MS / 1000}::int))` : sql``})
            or (r.source_mark <> ${changeMark(sql`c`)}
              ${gap > 0 ? sql`and r.folded_at <= now() - make_interval(secs => r.fold_ms * ${gap + 1}::int / 1000.0)
                and (c.status <> 'sending' or r.folded_at <= now() - make_interval(secs => ${SENDING_FOLD_EVERY_MS / 1000}::int))` : sql``})
        ) x on true
        order by x.id`,
  );
  return { ids: rows.filter((r) => r.id !== null).map((r) => Number(r.id)), at: rows[0]!.at };
}

export interface FoldPassResult {
  folded: number;
  /** The pass saw every campaign (not stopped, no fold failed): its start is recorded. */
  complete: boolean;
  ms: number;
}

/**
 * One pass of the job: folds every campaign whose mark moved, each in its own transaction, and
 * when all of them are folded records the pass's start in `campaign_rollup_passes` (every
 * campaign is current as of then: the charts show that time). Stops between campaigns when
 * `signal` fires; a campaign whose fold fails is left for the next pass (`onError`).
 */
export async function foldChangedCampaigns(
  db: Db,
  opts: FoldOptions & {
    signal?: AbortSignal;
    onError?: (campaignId: number, err: unknown) => void;
    /** Each campaign's fold, committed (`ok`) or not (`error`), and how long it took (the job's metrics). */
    onFolded?: (result: 'ok' | 'error', seconds: number) => void;
    gap?: number;
  } = {},
): Promise<FoldPassResult> {
  const started = Date.now();
  const { ids, at } = await campaignsToFold(db, { gap: opts.gap });
  let folded = 0;
  let complete = true;
  for (const id of ids) {
    if (opts.signal?.aborted) {
      complete = false;
      break;
    }
    const foldStarted = performance.now();
    try {
      await foldCampaign(db, id, opts);
      folded++;
      opts.onFolded?.('ok', (performance.now() - foldStarted) / 1000);
    } catch (err) {
      opts.onFolded?.('error', (performance.now() - foldStarted) / 1000);
      complete = false;
      if (!opts.onError) throw err;
      opts.onError(id, err);
    }
  }
  if (complete) {
    await db.execute(sql`insert into campaign_rollup_passes (name, passed_at) values (${ROLLUP_JOB}, ${at}::timestamptz)
      on conflict (name) do update set passed_at = greatest(campaign_rollup_passes.passed_at, excluded.passed_at)`);
  }
  return { folded, complete, ms: Date.now() - started };
}

/**
 * Below this many recipients a campaign's screen does not wait for the job: its charts are
 * folded at the read when its recipients moved since its fold, and its cost and routes are
 * counted from its recipients (tens of milliseconds either way), so a small campaign's figures
 * are exact the moment its last status lands. From it on, a fold or a count would take a large
 * share of a second at each poll: the screen reads the rollups as the job left them and says how
 * old they are.
 */
export const EXACT_BELOW = 50_000;

/**
 * Folds the campaigns of `userId` (or the one `campaignId`) that were never folded, so a chart
 * never answers from a rollup that does not exist yet (a campaign created since the job's last
 * pass), and, with `staleBelow`, those smaller than that whose recipients moved since their fold.
 * The others are left to the job. Returns whether anything was folded (the caller then reads
 * from the primary, which has it).
 */
export async function foldUnfolded(db: Db, userId: number, campaignId?: number, opts: { staleBelow?: number } = {}): Promise<boolean> {
  const stale = opts.staleBelow
    ? sql`or (c.total_recipients < ${opts.staleBelow}::int
          and exists (select 1 from campaign_rollups r where r.campaign_id = c.id and r.source_mark <> ${changeMark(sql`c`)}))`
    : sql``;
  const rows = await rowsOf<{ id: number }>(
    db,
    sql`select c.id from campaigns c where c.user_id = ${userId}::int ${campaignId === undefined ? sql`` : sql`and c.id = ${campaignId}`}
          and (not exists (select 1 from campaign_rollups r where r.campaign_id = c.id) ${stale})
        order by c.id`,
  );
  for (const r of rows) await foldCampaign(db, Number(r.id));
  return rows.length > 0;
}

/**
 * As of when a campaign's rollup is known current (`r` the rollup, `c` the campaign, `p` the
 * pass): a campaign whose mark still equals the one folded has not moved since, so it is current
 * at least as of the job's last complete pass (or its own fold, when later); one that moved since
 * (not folded yet, its fold due later or failed) is current as of its fold.
 */
export const asOfSql = sql`case when r.source_mark = ${changeMark(sql`c`)} then greatest(r.folded_at, p.passed_at) else r.folded_at end`;

/** When the figures of a campaign (or of all the user's campaigns: the oldest) were last known current. Null when nothing is folded. */
export async function foldedAt(db: Db | Tx, userId: number, campaignId?: number): Promise<string | null> {
  const [row] = await rowsOf<{ at: string | null }>(
    db,
    sql`select ${isoOf(sql`min(${asOfSql})`)} as at
        from campaign_rollups r join campaigns c on c.id = r.campaign_id
        left join campaign_rollup_passes p on p.name = ${ROLLUP_JOB}
        where r.user_id = ${userId}::int ${campaignId === undefined ? sql`` : sql`and r.campaign_id = ${campaignId}`}`,
  );
  return row?.at ?? null;
}
