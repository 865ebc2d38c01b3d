import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { jsonParam, rowsOf } from '../../db/sql';
import { nextWindowOpening, type SendingHours } from '../../services/campaigns/sending-hours';

/**
 * The claim's filter for "Horario de envío" (`r` is the campaign_recipients row): true when the
 * campaign has no hours, or when the recipient's local time (`now() at time zone r.time_zone`)
 * is inside the window, on one of its days and, if asked, not on a public holiday of the
 * recipient's country (`public_holidays`, filled when the audience is frozen). A window whose end
 * is before its start belongs to the day it starts: after midnight, the day before is checked.
 * Mirrors `isWithinSendingHours` of services/campaigns/sending-hours.ts.
 */
export function withinSendingHours(campaignId: number): SQL {
  const h = sql.raw(`hc.sending_hours`);
  const start = sql`(${h} ->> 'start')::time`;
  const end = sql`(${h} ->> 'end')::time`;
  const open = (day: SQL) =>
    sql`${h} -> 'days' @> to_jsonb(extract(isodow from ${day})::int)
      and not (coalesce((${h} ->> 'skip_holidays')::boolean, false)
        and exists (select 1 from public_holidays ph where ph.country = r.country and ph.day = (${day})::date))`;
  // The first test does not depend on the row: evaluated once per claim, it spares campaigns
  // without hours any per-row work.
  return sql`(not exists (select 1 from campaigns hn where hn.id = ${campaignId} and hn.sending_hours is not null) or exists (
    select 1 from campaigns hc
    cross join lateral (select now() at time zone coalesce(r.time_zone, 'UTC') as lt) l
    where hc.id = ${campaignId} and (${h} is null or case
      when ${start} < ${end} then l.lt::time >= ${start} and l.lt::time < ${end} and ${open(sql`l.lt`)}
      else (l.lt::time >= ${start} and ${open(sql`l.lt`)})
        or (l.lt::time < ${end} and ${open(sql`l.lt - interval '1 day'`)})
      end)))`;
}

/**
 * After a claim that took nothing although rows may be due (a claim that took rows clears the
 * wait itself, claim.ts): when the campaign has hours, the due rows are all outside their
 * windows. Records `hours_wait_until` = the earliest moment any due recipient's window opens,
 * and returns the milliseconds until then; otherwise clears it and returns null. The sender
 * idles at most a few refreshes, so hours changed meanwhile (or the clock reaching the window)
 * resume the campaign by itself.
 */
export async function hoursWaitAfterEmptyClaim(db: Db, campaignId: number): Promise<number | null> {
  const [c] = await rowsOf<{ sending_hours: SendingHours | string | null; now: Date | string }>(
    db,
    sql`select sending_hours, now() as now from campaigns where id = ${campaignId}`,
  );
  const hours = typeof c?.sending_hours === 'string' ? (JSON.parse(c.sending_hours) as SendingHours) : (c?.sending_hours ?? null);
  if (!c || !hours) {
    await clearHoursWait(db, campaignId);
    return null;
  }
  const zones = await rowsOf<{ time_zone: string | null; country: string | null }>(
    db,
    sql`select distinct time_zone, country from campaign_recipients
        where campaign_id = ${campaignId} and status = 'pending' and next_attempt_at <= now() limit 1000`,
  );
  const now = new Date(c.now);
  // The claim reads `public_holidays`: the wait must agree with it, not with the library.
  const holidays = new Set<string>();
  if (hours.skip_holidays) {
    const countries = [...new Set(zones.map((z) => z.country).filter((x): x is string => !!x))];
    const rows = await rowsOf<{ country: string; day: string }>(
      db,
      sql`select country, to_char(day, 'YYYY-MM-DD') as day from public_holidays
          where country in (select jsonb_array_elements_text(${jsonParam(countries)}))
            and day between (now() - interval '2 days')::date and (now() + interval '800 days')::date`,
    );
    for (const r of rows) holidays.add(`${r.country}:${r.day}`);
  }
  const isHoliday = (country: string | null, date: string) => country !== null && holidays.has(`${country}:${date}`);
  let earliest: number | null = null;
  for (const z of zones) {
    const at = nextWindowOpening(hours, z.time_zone ?? 'UTC', z.country, now, isHoliday);
    if (at && (earliest === null || at.getTime() < earliest)) earliest = at.getTime();
  }
  if (earliest === null || earliest <= now.getTime()) {
    await clearHoursWait(db, campaignId);
    return null;
  }
  const until = new Date(earliest).toISOString();
  await db.execute(sql`update campaigns set hours_wait_until = ${until}::timestamptz
    where id = ${campaignId} and hours_wait_until is distinct from ${until}::timestamptz`);
  return earliest - now.getTime();
}

async function clearHoursWait(db: Db, campaignId: number) {
  await db.execute(sql`update campaigns set hours_wait_until = null where id = ${campaignId} and hours_wait_until is not null`);
}
