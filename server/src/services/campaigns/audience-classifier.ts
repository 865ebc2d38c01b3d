import { sql, type SQL } from 'drizzle-orm';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import type { ContactFilter } from '@masivo/contract/contact-filter';
import type { ExclusionReason } from '@masivo/contract/preflight';
import type { Db } from '../../db/client';
import { jsonParam, pgCode, rowsOf, type Queryable } from '../../db/sql';
import { AppError } from '../../lib/errors';
import { contactFilterSql } from '../contacts/filter-engine';
import { US_MARKETING } from './us-marketing';

export const NO_VALID_PHONE = 'Sin número de teléfono válido';
export const DUPLICATE_PHONE = 'Número repetido: ya lo recibe otro contacto de la campaña';
export const BLACKLISTED_AT_FREEZE = 'Número en la lista negra';
export const FREQUENCY_CAPPED = 'Tope de frecuencia: ya recibió el máximo de mensajes de marketing del período';
export const TEMPLATE_UNFIT = 'Plantilla no apta para el envío';

/** The recipient's error message for each reason the classifier gives. */
export const REASON_MESSAGE: Record<ExclusionReason, string> = {
  invalid_phone: NO_VALID_PHONE,
  duplicate: DUPLICATE_PHONE,
  blacklisted: BLACKLISTED_AT_FREEZE,
  frequency_cap: FREQUENCY_CAPPED,
  us_marketing: US_MARKETING,
  template_unfit: TEMPLATE_UNFIT,
};

/**
 * The +1 area codes libphonenumber places in the United States (Canada, Puerto Rico and the
 * other +1 countries have their own), so the US exclusion is one comparison in SQL.
 */
export const US_AREA_CODES: readonly string[] = (() => {
  const codes: string[] = [];
  for (let npa = 200; npa <= 999; npa++) {
    if (parsePhoneNumberFromString(`+1${npa}2345678`)?.country === 'US') codes.push(String(npa));
  }
  return codes;
})();

/** The tenant's frequency cap, or null when it is off. */
export async function frequencyCapOf(db: Queryable, userId: number): Promise<{ maxMessages: number; days: number } | null> {
  const [row] = await rowsOf<{ max_messages: number; days: number }>(
    db,
    sql`select max_messages, days from frequency_caps where user_id = ${userId}`,
  );
  return row ? { maxMessages: Number(row.max_messages), days: Number(row.days) } : null;
}

/**
 * The phone keys of the tenant that already got `maxMessages` marketing messages (sent, on a
 * MARKETING template) in the last `days` days. Reads campaign_recipients_sent_key_idx.
 */
export function cappedKeysSql(userId: number, cap: { maxMessages: number; days: number }, onlyKeys?: string[]): SQL {
  const only = onlyKeys ? sql`and r.phone_key in (select jsonb_array_elements_text(${jsonParam(onlyKeys)}))` : sql``;
  return sql`select r.phone_key from campaign_recipients r
      join campaigns c on c.id = r.campaign_id
      join templates t on t.id = c.template_id
      where r.user_id = ${userId}::int and r.sent_at is not null
        and r.sent_at > now() - make_interval(days => ${cap.days}::int)
        and upper(coalesce(t.category, '')) = 'MARKETING' ${only}
      group by r.phone_key having count(*) >= ${cap.maxMessages}::int`;
}

export interface AudienceRules {
  userId: number;
  kommoAccountId: number;
  filters: ContactFilter;
  /** The template's category is MARKETING: US numbers and the frequency cap apply. */
  marketing: boolean;
  cap: { maxMessages: number; days: number } | null;
  /** The template cannot be sent (not approved, unmapped…): every otherwise sendable row is excluded. */
  templateUnfit: boolean;
  /**
   * A follow-up's campaign (0024, `audience_kind = 'contact_list'`): its frozen contact list
   * (campaign_audience_contacts) is the matched set instead of `filters`; every rule after the
   * match is the same.
   */
  contactListOf?: number | null;
}

/**
 * THE audience, classified: one row per contact the filter matches, with `reason` null for
 * the recipients who will be attempted, else why not (first reason wins, in this order:
 * invalid phone, duplicate, blacklist/opt-out, US marketing, frequency cap, template). The
 * freeze inserts from `classified`, the pre-flight counts `verdicts` (one row per person with
 * how many contacts share the key): the reasons are decided once, in `verdicts`, for both.
 * `classified` columns: contact_id, phone, phone_key (null when invalid), known_bsuid, reason.
 */
export function classifiedAudienceCtes(r: AudienceRules): SQL {
  return sql`${verdictCtes(r)},
    classified as (
      select a.contact_id, a.phone, a.phone_key, coalesce(a.bsuid, v.cb_bsuid) as known_bsuid, case
        when a.phone_key is null then 'invalid_phone'
        when a.contact_id <> v.first_id then 'duplicate'
        else v.reason end as reason
      from audience a
      left join verdicts v on v.phone_key = a.phone_key
    )`;
}

/**
 * audience: the matched contacts, by filter or a follow-up's frozen list (phone_key and bsuid are stored columns, 0020, so no string
 * function runs per row); people: one row per phone key (the null key groups the contacts
 * without a valid phone) with its contacts and its first (lowest id, the one attempted);
 * verdicts: each person's reason, or null when attempted.
 */
function verdictCtes(r: AudienceRules): SQL {
  // The matched set: the filter's contacts, or a follow-up's frozen list with the phone (and
  // its key and BSUID) each contact was reached at by the source campaign.
  const matched =
    r.contactListOf != null
      ? sql`select l.contact_id, l.phone, l.phone_key, l.bsuid
      from campaign_audience_contacts l
      where l.campaign_id = ${r.contactListOf}::int and l.user_id = ${r.userId}::int`
      : sql`select c.id as contact_id, coalesce(c.phone, c.bsuid) as phone, c.phone_key, c.bsuid
      from contacts c
      where ${contactFilterSql({ userId: r.userId, accountId: r.kommoAccountId, filter: r.filters })}`;
  // A +1 key is the E.164 phone without "+" (only AR and MX keys are folded), so the area code
  // is the key's digits 2-4; a BSUID key starts with letters.
  const usRule = r.marketing
    ? sql`when p.phone_key like '1%' and substr(p.phone_key, 2, 3) in (select jsonb_array_elements_text(${jsonParam(US_AREA_CODES)})) then 'us_marketing'`
    : sql``;
  const capRule = r.marketing && r.cap ? sql`when p.phone_key in (${cappedKeysSql(r.userId, r.cap)}) then 'frequency_cap'` : sql``;
  const templateRule = r.templateUnfit ? sql`else 'template_unfit'` : sql``;
  // One hashed set probed once per person: the blacklist's and the opt-outs' keys and BSUIDs.
  const blocked = sql`select b.phone_key from blacklist b where b.user_id = ${r.userId}::int and b.account_id = ${r.kommoAccountId}::int
      union all select o.phone_key from opt_outs o where o.user_id = ${r.userId}::int
      union all select b.bsuid from blacklist b where b.user_id = ${r.userId}::int and b.account_id = ${r.kommoAccountId}::int and b.bsuid is not null
      union all select o.bsuid from opt_outs o where o.user_id = ${r.userId}::int and o.bsuid is not null`;
  // known BSUID = the key itself when it is a BSUID (a phone key is digits, never equal to
  // one), else the BSUID recorded for the phone key.
  return sql`audience as (
      ${matched}
    ),
    people as (
      select a.phone_key, count(*) as n, min(a.contact_id) as first_id, min(a.phone collate "C") as sample
      from audience a group by a.phone_key
    ),
    verdicts as (
      select p.phone_key, p.n, p.first_id, p.sample, cb.bsuid as cb_bsuid, case
        when p.phone_key is null then 'invalid_phone'
        when p.phone_key in (${blocked})
          or cb.bsuid in (select b.bsuid from blacklist b where b.user_id = ${r.userId}::int and b.account_id = ${r.kommoAccountId}::int and b.bsuid is not null)
          or cb.bsuid in (select o.bsuid from opt_outs o where o.user_id = ${r.userId}::int and o.bsuid is not null)
          then 'blacklisted'
        ${usRule}
        ${capRule}
        ${templateRule}
        end as reason
      from people p
      left join contact_bsuids cb on cb.user_id = ${r.userId}::int and cb.phone_key = p.phone_key
    )`;
}

export interface AudienceCounts {
  matched: number;
  attempted: number;
  excluded: Record<ExclusionReason, number>;
  /** The attempted by a sample phone of each 4-digit key prefix (country lookup is done in Node). */
  prefixes: Array<{ sample: string; count: number }>;
}

export const PREFLIGHT_TIMED_OUT =
  'El cálculo previo tardó demasiado para esta audiencia; acota los filtros o vuelve a intentarlo en unos segundos.';

/** Counts the classified audience: one statement, nothing written. */
export async function countAudience(db: Db, rules: AudienceRules): Promise<AudienceCounts> {
  // Hash the audience in memory rather than spill it to disk (the default 4 MB spills at a
  // few hundred thousand contacts); `set local` ends with this transaction.
  const rows = await db
    .transaction(async (tx) => {
      await tx.execute(sql`set local work_mem = '64MB'`);
      // Bounded like every query a user can trigger (DB_STATEMENT_TIMEOUT_MS): a pre-flight the
      // database stops answers with a Spanish 503 instead of holding a connection.
      // Per person, not per contact: a person's other contacts are its duplicates (n - 1).
      return rowsOf<{ reason: string | null; sample: string | null; people: number | string; n: number | string }>(
        tx,
        sql`with ${verdictCtes(rules)}
          select reason, min(sample) as sample, count(*)::int as people, sum(n)::int as n
          -- offset 0: each person's reason is computed once, not again for the prefix key.
          from (select reason, phone_key, n, sample from verdicts offset 0) v
          group by reason, case when reason is null then left(phone_key, 4) end`,
      );
    })
    .catch((err: unknown) => {
      // 57014: the statement timeout stopped it (PostgreSQL; PGlite has none).
      if (pgCode(err) === '57014') throw new AppError(503, PREFLIGHT_TIMED_OUT);
      throw err;
    });
  const excluded: Record<ExclusionReason, number> = {
    invalid_phone: 0,
    duplicate: 0,
    blacklisted: 0,
    frequency_cap: 0,
    us_marketing: 0,
    template_unfit: 0,
  };
  let attempted = 0;
  let matched = 0;
  const prefixes: AudienceCounts['prefixes'] = [];
  for (const row of rows) {
    matched += Number(row.n);
    if (row.reason === 'invalid_phone') {
      excluded.invalid_phone += Number(row.n);
      continue;
    }
    excluded.duplicate += Number(row.n) - Number(row.people);
    const n = Number(row.people);
    if (row.reason === null) {
      attempted += n;
      prefixes.push({ sample: row.sample ?? '', count: n });
    } else excluded[row.reason as ExclusionReason] += n;
  }
  return { matched, attempted, excluded, prefixes };
}

/** A phone's country (ISO 3166 alpha-2), or a BSUID's country prefix; null when unknown. */
export function countryOfRecipient(phone: string): string | null {
  if (/^[A-Z]{2}\./.test(phone)) return phone.slice(0, 2);
  return parsePhoneNumberFromString(phone)?.country ?? null;
}
