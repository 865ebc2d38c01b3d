import { sql } from 'drizzle-orm';
import { jsonParam, rowsOf, withHashJoins, type Queryable } from '../../db/sql';
import { recipientZone } from './recipient-zone';
import { publicHolidays } from './sending-hours';

const PREFIX = sql.raw(`case when r.phone_key ~ '^[0-9]+$' then left(r.phone_key, 9) else '' end`);

/** Recipient ids per update statement (the zones travel as one JSON parameter). */
const ID_RANGE = 50_000;

/**
 * Stores each frozen recipient's zone and country (those without one yet; skipped rows never
 * need one) (`campaign_recipients.time_zone`, `country`),
 * computed by `recipientZone` once per group of recipients sharing the first 9 digits of their
 * phone key (the longest prefix the zone map uses) and the value of the account's zone field:
 * a million recipients are a few thousand groups, not a million calls. Then makes sure the
 * public holidays of their countries are stored for this year and the next. Run in the freeze's
 * transaction.
 */
export async function assignRecipientZones(db: Queryable, campaignId: number, opts: { evenWithoutHours?: boolean } = {}): Promise<void> {
  const [account] = await rowsOf<{ time_zone_field: string | null; time_zone: string | null; has_hours: boolean }>(
    db,
    sql`select k.time_zone_field, k.time_zone, c.sending_hours is not null as has_hours
        from campaigns c left join kommo_accounts k on k.id = c.kommo_account_id where c.id = ${campaignId}`,
  );
  // Only the claim of a campaign with hours reads the zones: a campaign without them skips the
  // work, and gets its zones when hours are set later (`zonesForNewHours`).
  if (!account || (!account.has_hours && !opts.evenWithoutHours)) return;
  const field = account?.time_zone_field ?? null;
  const accountTimeZone = account?.time_zone ?? 'America/Argentina/Buenos_Aires';
  const fieldOf = field === null ? sql`null::text` : sql`ct.custom_fields ->> ${field}`;
  const groups = await rowsOf<{ prefix: string; field: string; sample: string | null }>(
    db,
    sql`select ${PREFIX} as prefix, coalesce(${fieldOf}, '') as field,
          min(case when r.phone_key ~ '^[0-9]+$' then r.phone_key end) as sample
        from campaign_recipients r left join contacts ct on ct.id = r.contact_id
        where r.campaign_id = ${campaignId} and r.time_zone is null and r.status not in ('skipped')
        group by 1, 2`,
  );
  const zoned = groups.map((g) => {
    const z = recipientZone({ fieldValue: g.field || null, phone: g.sample, accountTimeZone });
    return { p: g.prefix, f: g.field, tz: z.timeZone, cc: z.country };
  });
  // The database's zone list may lag the runtime's: a zone it does not know would make the
  // claim's `at time zone` fail, so it becomes the account's zone (or UTC).
  const names = [...new Set([...zoned.map((z) => z.tz), accountTimeZone])];
  const known = new Set(
    (await rowsOf<{ name: string }>(db, sql`select name from pg_timezone_names where name in (select jsonb_array_elements_text(${jsonParam(names)}))`)).map((r) => r.name),
  );
  const fallback = known.has(accountTimeZone) ? accountTimeZone : 'UTC';
  for (const z of zoned) if (!known.has(z.tz)) z.tz = fallback;
  // The rows were just inserted (no statistics yet): the planner would loop over the JSON for
  // every recipient. A hash join is what fits (withHashJoins); the settings are restored before
  // returning and are local to the caller's transaction (the freeze's, or `zonesForNewHours`').
  // One statement per id range, so a large audience never holds one long statement.
  const [range] = await rowsOf<{ lo: number | string | null; hi: number | string | null }>(
    db,
    sql`select min(id) as lo, max(id) as hi from campaign_recipients where campaign_id = ${campaignId}`,
  );
  const fieldOfRow = field === null ? sql`null::text` : sql`(select ct.custom_fields ->> ${field} from contacts ct where ct.id = r.contact_id)`;
  const zonesJson = jsonParam(zoned);
  await withHashJoins(db, async () => {
    for (let lo = Number(range?.lo ?? 0), hi = Number(range?.hi ?? -1); lo <= hi; lo += ID_RANGE) {
      await db.execute(sql`update campaign_recipients r set time_zone = z.tz, country = z.cc
        from jsonb_to_recordset(${zonesJson}) as z(p text, f text, tz text, cc text)
        where r.campaign_id = ${campaignId} and r.id >= ${lo} and r.id < ${lo + ID_RANGE}
          and r.time_zone is null and r.status not in ('skipped')
          and z.p = ${PREFIX} and z.f = coalesce(${fieldOfRow}, '')`);
    }
  });
  const countries = [...new Set(zoned.map((z) => z.cc).filter((c): c is string => !!c))];
  await ensureHolidays(db, countries, new Date());
}

/**
 * Stores the public holidays of each country for the year of `now` and the next, once per
 * (country, year): the claim reads `public_holidays`, never the library.
 */
export async function ensureHolidays(db: Queryable, countries: string[], now: Date): Promise<void> {
  if (!countries.length) return;
  const years = [now.getUTCFullYear(), now.getUTCFullYear() + 1];
  const wanted = countries.flatMap((c) => years.map((y) => ({ c, y })));
  const present = await rowsOf<{ country: string; year: number }>(
    db,
    sql`select country, year from public_holiday_years
        where (country, year) in (select x.c, x.y from jsonb_to_recordset(${jsonParam(wanted)}) as x(c text, y int))`,
  );
  const have = new Set(present.map((r) => `${r.country}:${Number(r.year)}`));
  const missing = wanted.filter((w) => !have.has(`${w.c}:${w.y}`));
  if (!missing.length) return;
  const days = missing.flatMap((w) => [...publicHolidays(w.c, w.y)].map(([day, name]) => ({ c: w.c, d: day, n: name })));
  if (days.length) {
    await db.execute(sql`insert into public_holidays (country, day, name)
      select x.c, x.d::date, x.n from jsonb_to_recordset(${jsonParam(days)}) as x(c text, d text, n text)
      on conflict do nothing`);
  }
  await db.execute(sql`insert into public_holiday_years (country, year)
    select x.c, x.y from jsonb_to_recordset(${jsonParam(missing)}) as x(c text, y int) on conflict do nothing`);
}

const lastHolidayRefresh = new WeakMap<object, string>();

/**
 * Scheduler step, at most once a UTC day per process: the holidays of the countries of campaigns
 * sending with `skip_holidays`, for this year and the next (a campaign frozen in one year may
 * still send the year after next). Returns 0: it changes no campaign.
 */
export async function refreshHolidays(db: Queryable & object, now = new Date()): Promise<number> {
  const today = now.toISOString().slice(0, 10);
  if (lastHolidayRefresh.get(db) === today) return 0;
  const rows = await rowsOf<{ country: string }>(
    db,
    sql`select distinct r.country from campaigns c join campaign_recipients r on r.campaign_id = c.id
        where c.status = 'sending' and (c.sending_hours ->> 'skip_holidays')::boolean and r.status = 'pending' and r.country is not null
        limit 500`,
  );
  await ensureHolidays(db, rows.map((r) => r.country), now);
  lastHolidayRefresh.set(db, today);
  return 0;
}
