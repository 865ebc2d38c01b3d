import { sql, type SQL } from 'drizzle-orm';
import { metaErrorDescription } from '@masivo/contract/meta-errors';
import { STATS_BUCKET_MINUTES, STATS_MAX_POINTS, type CampaignStats, type CampaignStatsQuery } from '@masivo/contract/stats';
import type { Db } from '../../db/client';
import { isoOf, rowsOf } from '../../db/sql';
import { loadCampaignRow } from './campaign-queries';

const MINUTE = 60_000;
/** Integer arithmetic on instants: no zone conversion per row, only per minute. */
const ORIGIN = sql`timestamptz '2000-01-01 00:00:00+00'`;
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
}

/**
 * A campaign's charts: sends, deliveries and reads over time, the funnel and the
 * failures by Meta error code. Three statements over the campaign's recipients, which they reach
 * through the index on (campaign_id, phone_key) (the failures through (campaign_id, status)):
 *  1. the funnel and the first and last event, in one pass;
 *  2. the timeline: counted per minute on the instants (no zone conversion per row), then the
 *     minutes bucketed in the browser's zone with a width chosen from the span;
 *  3. the failures, grouped by code.
 *
 * "Attempted" is the freeze's (and the pre-flight's) count: every recipient except those the
 * freeze recorded as skipped. A freeze-skipped row is never claimed (attempts = 0), while the
 * sender's own skips (a number blacklisted after the freeze) come after a claim, so they were
 * attempted.
 *
 * The campaign is looked up on `db` (the primary: one created a moment ago is never a 404); the
 * three statements run on `reads`, the route's `ctx.readDb`, since charts tolerate lag.
 */
export async function campaignStats(db: Db, userId: number, id: number, query: CampaignStatsQuery, reads: Db = db): Promise<CampaignStats> {
  await loadCampaignRow(db, userId, id);
  const zone = query.tz ?? 'UTC';
  const mine = sql`r.campaign_id = ${id} and r.user_id = ${userId}::int`;
  const [t] = await rowsOf<Totals>(
    reads,
    sql`select
          (count(*) filter (where not (r.status = 'skipped' and r.attempts = 0)))::int as attempted,
          count(coalesce(r.sent_at, r.delivered_at, r.read_at))::int as sent,
          count(coalesce(r.delivered_at, r.read_at))::int as delivered,
          count(r.read_at)::int as read,
          count(r.replied_at)::int as replied,
          ${isoOf(sql`least(min(r.sent_at), min(r.delivered_at), min(r.read_at))`)} as first,
          ${isoOf(sql`greatest(max(r.sent_at), max(r.delivered_at), max(r.read_at))`)} as last
        from campaign_recipients r where ${mine}`,
  );
  const totals = t ?? { attempted: 0, sent: 0, delivered: 0, read: 0, replied: 0, first: null, last: null };
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
      reads,
      sql`with minutes as (
            select date_bin('1 minute', e.ts, ${ORIGIN}) as m, e.kind, count(*)::int as n
            from campaign_recipients r
            cross join lateral (values (r.sent_at, 1), (r.delivered_at, 2), (r.read_at, 3)) as e(ts, kind)
            where ${mine} and e.ts is not null
            group by 1, 2
          ),
          counted as (
            select ${bin(sql`m`)} as b, (sum(n) filter (where kind = 1))::int as sent,
              (sum(n) filter (where kind = 2))::int as delivered, (sum(n) filter (where kind = 3))::int as read
            from minutes group by 1
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
    reads,
    sql`select r.error_code as code, count(*)::int as n, min(r.error_message) as message
        from campaign_recipients r where ${mine} and r.status = 'failed'
        group by r.error_code order by n desc, r.error_code nulls last`,
  );
  const failures = failed.map((f) => {
    const code = f.code === null ? null : Number(f.code);
    return {
      code,
      description: metaErrorDescription(code) ?? (f.message ? `Error ${code} de Meta: ${f.message}` : `Error ${code} de Meta`),
      count: Number(f.n),
    };
  });

  return { bucket_minutes: bucket, time_zone: zone, timeline, funnel, failures };
}
