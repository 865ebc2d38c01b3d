import { sql, type SQL } from 'drizzle-orm';
import { metaErrorDescription } from '@masivo/contract/meta-errors';
import {
  STATS_BUCKET_MINUTES,
  type ActivityDay,
  type CampaignStats,
  type CampaignStatsQuery,
  type DashboardActivity,
  type DashboardActivityQuery,
  type NumberActivity,
} from '@masivo/contract/stats';
import type { Db } from '../../src/db/client';
import { isoOf, rowsOf } from '../../src/db/sql';
import { loadCampaignRow } from '../../src/services/campaigns/campaign-queries';
import { chooseBucketMinutes } from '../../src/services/campaigns/campaign-stats';
import { DEFAULT_ACTIVITY_DAYS, DELETED_NUMBER } from '../../src/services/dashboard/activity';

/**
 * The charts as they were computed before the rollups (0051): straight from campaign_recipients,
 * on every request. The reference the rollups must equal (campaign-rollups.test.ts, and the
 * dashboard bench, which times it beside the rollups).
 */

const ORIGIN = sql`timestamptz '2000-01-01 00:00:00+00'`;

interface Totals {
  attempted: number;
  sent: number;
  delivered: number;
  read: number;
  replied: number;
  first: string | null;
  last: string | null;
}

interface DayRow {
  account: number | null;
  day: string;
  sent: number;
  delivered: number;
  read: number;
  failed: number;
}

/** `YYYY-MM-DD` plus `n` calendar days. */
function addDays(day: string, n: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

export async function campaignStatsFromRecipients(db: Db, userId: number, id: number, query: CampaignStatsQuery, reads: Db = db): Promise<Omit<CampaignStats, 'folded_at'>> {
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

export async function dashboardActivityFromRecipients(db: Db, userId: number, query: DashboardActivityQuery): Promise<Omit<DashboardActivity, 'folded_at'>> {
  const days = query.days ?? DEFAULT_ACTIVITY_DAYS;
  const zone = query.tz ?? 'UTC';
  const [window] = await rowsOf<{ from: string; to: string; start: Date | string }>(
    db,
    sql`select to_char(d.today - ${days - 1}::int, 'YYYY-MM-DD') as "from", to_char(d.today, 'YYYY-MM-DD') as "to",
          ((d.today - ${days - 1}::int)::timestamp at time zone ${zone}::text) as start
        from (select (now() at time zone ${zone}::text)::date as today) d`,
  );
  const start = new Date(window!.start).toISOString();
  // Rows are first counted per campaign and quarter hour (integer arithmetic on the instant, no
  // zone conversion per row); every zone's midnight falls on a quarter hour, so each quarter
  // belongs to one local day, and only the few thousand quarters are converted.
  const quarter = (col: string) => sql`date_bin('15 minutes', ${sql.raw(col)}, timestamptz '2000-01-01 00:00:00+00')`;
  const rows = await rowsOf<DayRow>(
    db,
    sql`with sends as (
          select r.campaign_id, ${quarter('r.sent_at')} as q, count(*)::int as sent,
            count(coalesce(r.delivered_at, r.read_at))::int as delivered, count(r.read_at)::int as read, 0 as failed
          from campaign_recipients r
          where r.user_id = ${userId}::int and r.sent_at >= ${start}::timestamptz
          group by 1, 2
        ),
        failures as (
          select r.campaign_id, ${quarter('r.failed_at')} as q, 0 as sent, 0 as delivered, 0 as read, count(*)::int as failed
          from campaign_recipients r
          where r.user_id = ${userId}::int and r.status = 'failed' and r.failed_at >= ${start}::timestamptz
          group by 1, 2
        )
        select c.whatsapp_account_id as account, to_char(u.q at time zone ${zone}::text, 'YYYY-MM-DD') as day,
          sum(u.sent)::int as sent, sum(u.delivered)::int as delivered, sum(u.read)::int as read, sum(u.failed)::int as failed
        from (select * from sends union all select * from failures) u
        join campaigns c on c.id = u.campaign_id and c.user_id = ${userId}::int
        group by 1, 2`,
  );
  const accounts = await rowsOf<{ id: number; name: string; phone: string | null }>(
    db,
    sql`select id, name, coalesce(display_phone_number, phone_number) as phone from whatsapp_accounts
        where user_id = ${userId}::int order by name, id`,
  );

  const dayList: string[] = [];
  for (let i = 0; i < days; i++) dayList.push(addDays(window!.from, i));
  const byAccount = new Map<number | null, Map<string, DayRow>>();
  for (const r of rows) {
    const key = r.account === null ? null : Number(r.account);
    let m = byAccount.get(key);
    if (!m) byAccount.set(key, (m = new Map()));
    m.set(r.day, r);
  }
  const series = (account: number | null): ActivityDay[] =>
    dayList.map((day) => {
      const r = byAccount.get(account)?.get(day);
      return { day, sent: Number(r?.sent ?? 0), delivered: Number(r?.delivered ?? 0), read: Number(r?.read ?? 0), failed: Number(r?.failed ?? 0) };
    });
  const numbers: NumberActivity[] = accounts.map((a) => ({
    whatsapp_account_id: Number(a.id),
    name: a.name,
    phone: a.phone,
    days: series(Number(a.id)),
  }));
  if (byAccount.has(null)) numbers.push({ whatsapp_account_id: null, name: DELETED_NUMBER, phone: null, days: series(null) });
  return { days, time_zone: zone, from: window!.from, to: window!.to, numbers };
}
