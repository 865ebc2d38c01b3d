import { sql, type SQL } from 'drizzle-orm';
import { metaErrorDescription } from '@masivo/contract/meta-errors';
import { STATS_BUCKET_MINUTES, STATS_MAX_POINTS, type CampaignStats, type CampaignStatsQuery } from '@masivo/contract/stats';
import type { Db } from '../../db/client';
import { isoOf, rowsOf } from '../../db/sql';
import { loadCampaignRow } from './campaign-queries';
import { ROLLUP_JOB } from '../../db/rollup-mark';
import { asOfSql, EXACT_BELOW, foldUnfolded } from './campaign-rollups';

const MINUTE = 60_000;
const DAY_MINUTES = 1440;

/**
 * The bucket width (minutes) for a timeline spanning `spanMs`: the finest of
 * STATS_BUCKET_MINUTES that keeps it within STATS_MAX_POINTS points (a span of s minutes
 * touches at most ceil(s / b) + 1 buckets of b minutes), else whole days.
 */
export function chooseBucketMinutes(spanMs: number): number {
  const minutes = Math.max(0, spanMs) / MINUTE;
  const fits = (b: number) => Math.ceil(minutes / b) + 1 <= STATS_MAX_POINTS;
  for (const b of STATS_BUCKET_MINUTES) if (fits(b)) return b;
  return DAY_MINUTES * Math.ceil(minutes / (DAY_MINUTES * (STATS_MAX_POINTS - 1)));
}

interface Totals {
  attempted: number;
  sent: number;
  delivered: number;
  read: number;
  replied: number;
  first: string | null;
  last: string | null;
  folded_at: string | null;
}

/**
 * A campaign's charts: sends, deliveries and reads over time, the funnel and the failures by
 * Meta error code, read from the campaign's rollups (campaign-rollups.ts), which the
 * `campaign-rollups` job folds from the recipients off the send path; `folded_at` says when
 * they were last current (the screen shows the delay). A campaign never folded yet (created
 * since the job's last pass) is folded here first, on the primary.
 *
 *  1. the funnel and the first and last event, one row;
 *  2. the timeline: the per-minute rollup bucketed in the browser's zone, with a width chosen
 *     from the span;
 *  3. the failures, per code.
 *
 * "Attempted" is the freeze's (and the pre-flight's) count: every recipient except those the
 * freeze recorded as skipped. A freeze-skipped row is never claimed (attempts = 0), while the
 * sender's own skips (a number blacklisted after the freeze) come after a claim, so they were
 * attempted.
 *
 * The campaign is looked up on `db` (the primary: one created a moment ago is never a 404); the
 * rollups are read on `reads`, the route's `ctx.readDb`, since charts tolerate lag.
 */
export async function campaignStats(db: Db, userId: number, id: number, query: CampaignStatsQuery, reads: Db = db): Promise<CampaignStats> {
  await loadCampaignRow(db, userId, id);
  // A small campaign whose recipients moved since its fold is folded now: exact at once.
  const source = (await foldUnfolded(db, userId, id, { staleBelow: EXACT_BELOW })) ? db : reads;
  const zone = query.tz ?? 'UTC';
  const [t] = await rowsOf<Totals>(
    source,
    sql`select r.attempted, r.sent, r.delivered, r.read, r.replied, ${isoOf(sql`r.first_at`)} as first, ${isoOf(sql`r.last_at`)} as last,
          ${isoOf(asOfSql)} as folded_at
        from campaign_rollups r join campaigns c on c.id = r.campaign_id
        left join campaign_rollup_passes p on p.name = ${ROLLUP_JOB}
        where r.campaign_id = ${id} and r.user_id = ${userId}::int`,
  );
  const totals = t ?? { attempted: 0, sent: 0, delivered: 0, read: 0, replied: 0, first: null, last: null, folded_at: null };
  const funnel = {
    attempted: Number(totals.attempted),
    sent: Number(totals.sent),
    delivered: Number(totals.delivered),
    read: Number(totals.read),
    replied: Number(totals.replied),
  };

  let bucket: number = STATS_BUCKET_MINUTES[0];
  let timeline: CampaignStats['timeline'] = [];
  if (totals.first && totals.last) {
    bucket = chooseBucketMinutes(Date.parse(totals.last) - Date.parse(totals.first));
    const width = sql`make_interval(mins => ${bucket}::int)`;
    // Buckets start on multiples of the width from a local midnight, so hours and days read
    // naturally in the operator's zone; every bucket between the first and the last is listed.
    const bin = (ts: SQL) => sql`date_bin(${width}, ${ts} at time zone ${zone}::text, timestamp '2000-01-01')`;
    const points = await rowsOf<{ at: string; sent: number; delivered: number; read: number }>(
      source,
      sql`with counted as (
            select ${bin(sql`m.minute`)} as b, sum(m.sent)::int as sent, sum(m.delivered)::int as delivered, sum(m.read)::int as read
            from campaign_rollup_minutes m where m.campaign_id = ${id}
            group by 1
          ),
          series as (
            select generate_series((select min(b) from counted), (select max(b) from counted), ${width}) as b
          )
          select ${isoOf(sql`(s.b at time zone ${zone}::text)`)} as at,
            coalesce(c.sent, 0) as sent, coalesce(c.delivered, 0) as delivered, coalesce(c.read, 0) as read
          from series s left join counted c on c.b = s.b
          order by s.b`,
    );
    timeline = points.map((p) => ({ at: p.at, sent: Number(p.sent), delivered: Number(p.delivered), read: Number(p.read) }));
  }

  const failed = await rowsOf<{ code: number | null; n: number; message: string | null }>(
    source,
    sql`select f.error_code as code, f.failures as n, f.message
        from campaign_rollup_failures f where f.campaign_id = ${id}
        order by n desc, f.error_code nulls last`,
  );
  const failures = failed.map((f) => {
    const code = f.code === null ? null : Number(f.code);
    return {
      code,
      description: metaErrorDescription(code) ?? (f.message ? `Error ${code} de Meta: ${f.message}` : `Error ${code} de Meta`),
      count: Number(f.n),
    };
  });

  return { bucket_minutes: bucket, time_zone: zone, timeline, funnel, failures, folded_at: totals.folded_at };
}
