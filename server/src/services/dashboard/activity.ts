import { sql } from 'drizzle-orm';
import type { ActivityDay, DashboardActivity, DashboardActivityQuery, NumberActivity } from '@masivo/contract/stats';
import type { Db } from '../../db/client';
import { rowsOf } from '../../db/sql';

export const DEFAULT_ACTIVITY_DAYS = 30;
/** The row of recipients whose campaign lost its number (the number was deleted). */
export const DELETED_NUMBER = 'Número eliminado';

interface DayRow {
  account: number | null;
  day: string;
  sent: number;
  delivered: number;
  read: number;
  failed: number;
}

/**
 * The dashboard's last `days` days, per WhatsApp number and local day, in the
 * browser's zone (UTC when absent). A day counts the messages Meta accepted that day (by
 * `sent_at`) and, of those, how many were delivered and read since, so the rates of a day are
 * those of its sends; `failed` counts the recipients that failed that day (by `failed_at`, a
 * failure often has no `sent_at`). Every number of the user is listed with every day, zeros
 * included. The two scans read campaign_recipients_user_sent_idx and
 * campaign_recipients_user_failed_idx (0023), from the window's first local midnight on.
 */
export async function dashboardActivity(db: Db, userId: number, query: DashboardActivityQuery): Promise<DashboardActivity> {
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

/** `YYYY-MM-DD` plus `n` calendar days. */
function addDays(day: string, n: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}
