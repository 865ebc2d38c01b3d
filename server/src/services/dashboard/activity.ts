import { sql } from 'drizzle-orm';
import type { ActivityDay, DashboardActivity, DashboardActivityQuery, NumberActivity } from '@masivo/contract/stats';
import type { Db } from '../../db/client';
import { rowsOf } from '../../db/sql';
import { foldedAt, foldUnfolded } from '../campaigns/campaign-rollups';

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
 * The dashboard's last `days` days, per WhatsApp number and local day, in the browser's zone
 * (UTC when absent). A day counts the messages Meta accepted that day (by `sent_at`) and, of
 * those, how many were delivered and read since, so the rates of a day are those of its sends;
 * `failed` counts the recipients that failed that day (by `failed_at`, a failure often has no
 * `sent_at`). Every number of the user is listed with every day, zeros included.
 *
 * Read from the per-campaign quarter-hour rollup (campaign-rollups.ts, folded off the send path
 * by the `campaign-rollups` job; `folded_at` says as of when): every zone's midnight falls on a
 * quarter hour, so each quarter belongs to one local day, and only the quarters of the window are
 * converted. Campaigns never folded yet are folded here first, on the primary (`db`); the
 * rollups are otherwise read on `reads` (the route's replica).
 */
export async function dashboardActivity(db: Db, userId: number, query: DashboardActivityQuery, reads: Db = db): Promise<DashboardActivity> {
  const days = query.days ?? DEFAULT_ACTIVITY_DAYS;
  const zone = query.tz ?? 'UTC';
  const source = (await foldUnfolded(db, userId)) ? db : reads;
  const [window] = await rowsOf<{ from: string; to: string; start: Date | string }>(
    source,
    sql`select to_char(d.today - ${days - 1}::int, 'YYYY-MM-DD') as "from", to_char(d.today, 'YYYY-MM-DD') as "to",
          ((d.today - ${days - 1}::int)::timestamp at time zone ${zone}::text) as start
        from (select (now() at time zone ${zone}::text)::date as today) d`,
  );
  const start = new Date(window!.start).toISOString();
  const rows = await rowsOf<DayRow>(
    source,
    sql`select c.whatsapp_account_id as account, to_char(q.quarter at time zone ${zone}::text, 'YYYY-MM-DD') as day,
          sum(q.sent)::int as sent, sum(q.delivered)::int as delivered, sum(q.read)::int as read, sum(q.failed)::int as failed
        from campaign_rollup_quarters q
        join campaigns c on c.id = q.campaign_id and c.user_id = ${userId}::int
        where q.user_id = ${userId}::int and q.quarter >= ${start}::timestamptz
        group by 1, 2`,
  );
  const folded = await foldedAt(source, userId);
  const accounts = await rowsOf<{ id: number; name: string; phone: string | null }>(
    source,
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
  return { days, time_zone: zone, from: window!.from, to: window!.to, numbers, folded_at: folded };
}

/** `YYYY-MM-DD` plus `n` calendar days. */
function addDays(day: string, n: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}
