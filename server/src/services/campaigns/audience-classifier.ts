import { sql, type SQL } from 'drizzle-orm';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import type { ContactFilter } from '@masivo/contract/contact-filter';
import type { ExclusionReason } from '@masivo/contract/preflight';
import type { Db } from '../../db/client';
import { jsonParam, pgCode, rowsOf, type Queryable } from '../../db/sql';
import { AppError } from '../../lib/errors';
import { contactFilterSchema } from '@masivo/contract/contact-filter';
import { facetKeyGroups, facetMatch } from '../contacts/facet-count';
import { contactFilterSql } from '../contacts/filter-engine';
import { narrowSearchSql } from '../contacts/search-text';
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
export function cappedKeysSql(userId: number, cap: { maxMessages: number | SQL; days: number | SQL }, onlyKeys?: string[]): SQL {
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
  /**
   * The Kommo account whose blacklist applies (and whose contacts a filter matches). Null only
   * for an explicit campaign (0039), which has none: then every blacklist of the tenant applies.
   */
  kommoAccountId: number | null;
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
  /**
   * A campaign with explicit recipients (0039, `audience_kind = 'explicit'`): its staged rows
   * (campaign_explicit_recipients) are the matched set, `position` standing for the contact id
   * (so the first position of a repeated phone is the one attempted) and `params` carried along.
   */
  explicitOf?: number | null;
  /**
   * An automatic campaign's due events (0043): their main contacts (ids of `contacts`, of the
   * campaign's Kommo account) are the matched set, classified by the same rules at the due time.
   */
  contactIdsOf?: number[] | null;
}

/** The blacklist entries that apply: the campaign's Kommo account's, or all the tenant's when it has none. */
function blacklistScope(r: Pick<AudienceRules, 'kommoAccountId'>): SQL {
  return r.kommoAccountId != null ? sql`and b.account_id = ${r.kommoAccountId}::int` : sql``;
}

/** The Kommo account a filter reads; only explicit campaigns have none, and they never read a filter. */
function filterAccount(r: Pick<AudienceRules, 'kommoAccountId'>): number {
  if (r.kommoAccountId == null) throw new Error('A filter audience needs a Kommo account');
  return r.kommoAccountId;
}

/**
 * THE audience, classified: one row per contact the filter matches, with `reason` null for
 * the recipients who will be attempted, else why not (first reason wins, in this order:
 * invalid phone, duplicate, blacklist/opt-out, US marketing, frequency cap, template). The
 * freeze inserts from `classified`; the pre-flight counts the same rules, in the same order,
 * by key prefix (countAudience), and tests hold the two to the same figures.
 * `classified` columns: contact_id (an explicit recipient's position), phone, phone_key (null
 * when invalid), known_bsuid, params (an explicit recipient's own, else null), reason.
 */
export function classifiedAudienceCtes(r: AudienceRules): SQL {
  // The matched set: the filter's contacts, or a follow-up's frozen list with the phone (and
  // its key and BSUID) each contact was reached at by the source campaign.
  // An explicit campaign's staged recipients: the position stands for the contact id.
  const matched =
    r.contactIdsOf != null
      ? sql`select c.id as contact_id, coalesce(c.phone, c.bsuid) as phone, c.phone_key, c.bsuid, null::jsonb as params
      from contacts c
      where c.user_id = ${r.userId}::int and c.account_id = ${filterAccount(r)}::int
        and c.id in (select jsonb_array_elements_text(${jsonParam(r.contactIdsOf)})::bigint)`
      : r.explicitOf != null
      ? sql`select e.position as contact_id, coalesce(e.phone, e.bsuid) as phone, e.phone_key, e.bsuid, e.params
      from campaign_explicit_recipients e
      where e.campaign_id = ${r.explicitOf}::int and e.user_id = ${r.userId}::int`
      : r.contactListOf != null
      ? sql`select l.contact_id, l.phone, l.phone_key, l.bsuid, null::jsonb as params
      from campaign_audience_contacts l
      where l.campaign_id = ${r.contactListOf}::int and l.user_id = ${r.userId}::int ${listExclusionSql(r)}`
      : sql`select c.id as contact_id, coalesce(c.phone, c.bsuid) as phone, c.phone_key, c.bsuid, null::jsonb as params
      from contacts c
      where ${contactFilterSql({ userId: r.userId, accountId: filterAccount(r), filter: r.filters })}`;
  // A +1 key is the E.164 phone without "+" (only AR and MX keys are folded), so the area code
  // is the key's digits 2-4; a BSUID key starts with letters.
  const usRule = r.marketing
    ? sql`when a.phone_key like '1%' and substr(a.phone_key, 2, 3) in (select jsonb_array_elements_text(${jsonParam(US_AREA_CODES)})) then 'us_marketing'`
    : sql``;
  const capRule = r.marketing && r.cap ? sql`when a.phone_key in (${cappedKeysSql(r.userId, r.cap)}) then 'frequency_cap'` : sql``;
  const templateRule = r.templateUnfit ? sql`else 'template_unfit'` : sql``;
  // One hashed set probed once per row: the blacklist's and the opt-outs' keys and BSUIDs.
  const blocked = sql`select b.phone_key from blacklist b where b.user_id = ${r.userId}::int ${blacklistScope(r)}
      union all select o.phone_key from opt_outs o where o.user_id = ${r.userId}::int
      union all select b.bsuid from blacklist b where b.user_id = ${r.userId}::int ${blacklistScope(r)} and b.bsuid is not null
      union all select o.bsuid from opt_outs o where o.user_id = ${r.userId}::int and o.bsuid is not null`;
  // repeated: only the keys held by more than one matched row, with the first (lowest id, the
  // one attempted). It is small, so every row meets it, and the tenant's few recorded BSUIDs, in
  // a hash join: no per-person table of the whole audience is built, sorted or joined back.
  // known BSUID = the key itself when it is a BSUID (a phone key is digits, never equal to
  // one), else the BSUID recorded for the phone key.
  // An audience of one account's contacts can only repeat the keys its contacts share
  // (contact_people, n > 1: a few rows, read through contact_people_shared_idx); a staged list
  // (explicit recipients, a follow-up's) may repeat any of its keys.
  const shared =
    r.explicitOf == null && r.contactListOf == null
      ? sql`and a.phone_key in (select s.phone_key from contact_people s where s.account_id = ${filterAccount(r)}::int and s.n > 1)`
      : sql``;
  // `repeated` reads the matched set on its own rather than through `audience`: a CTE read
  // twice is written out whole first (a million rows at a large freeze), one read once is planned
  // into its query, and `repeated` only needs the few shared keys (an index or a hash away).
  return sql`audience as (
      ${matched}
    ),
    repeated as (
      select a.phone_key, min(a.contact_id) as first_id
      from (${matched}) a where a.phone_key is not null ${shared}
      group by a.phone_key having count(*) > 1
    ),
    classified as (
      select a.contact_id, a.phone, a.phone_key, coalesce(a.bsuid, cb.bsuid) as known_bsuid, a.params, case
        when a.phone_key is null then 'invalid_phone'
        when a.contact_id <> d.first_id then 'duplicate'
        when a.phone_key in (${blocked})
          or cb.bsuid in (select b.bsuid from blacklist b where b.user_id = ${r.userId}::int ${blacklistScope(r)} and b.bsuid is not null)
          or cb.bsuid in (select o.bsuid from opt_outs o where o.user_id = ${r.userId}::int and o.bsuid is not null)
          then 'blacklisted'
        ${usRule}
        ${capRule}
        ${templateRule}
        end as reason
      from audience a
      left join repeated d on d.phone_key = a.phone_key
      left join contact_bsuids cb on cb.user_id = ${r.userId}::int and cb.phone_key = a.phone_key
    )`;
}

/**
 * A frozen contact list keeps its filter's excluded tags (a follow-up carries its source's): a
 * listed contact that holds one of them now is left out, as the filter would leave it out.
 * Empty when there are none.
 */
export function listExclusionSql(r: Pick<AudienceRules, 'userId' | 'kommoAccountId' | 'filters'>, contactId: SQL = sql`l.contact_id`): SQL {
  const excluded = r.filters.excludedTags ?? [];
  if (excluded.length === 0 || r.kommoAccountId == null) return sql``;
  const holders = contactFilterSql({ userId: r.userId, accountId: r.kommoAccountId, filter: { tags: excluded, tagOperator: 'OR' } });
  return sql`and not exists (select 1 from contacts c where c.id = ${contactId} and ${holders})`;
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

const noExclusions = (): Record<ExclusionReason, number> => ({
  invalid_phone: 0,
  duplicate: 0,
  blacklisted: 0,
  frequency_cap: 0,
  us_marketing: 0,
  template_unfit: 0,
});

/**
 * Counts the classified audience, nothing written, by the classifier's rules and order, but
 * without deciding a verdict per person: people are counted by key prefix (the first 4
 * characters: country code and the start of the area code), and only the people the blacklist,
 * the opt-outs or the frequency cap name are looked at one by one. The people come from the
 * narrow tables instead of the contacts heap:
 * - a filter with conditions: its contact_facets rows (they carry the phone key, 0026), grouped
 *   by key;
 * - every contact: contact_people_prefixes, and index probes into contact_people;
 * - only a "none of them" condition (excluded tags, or a field that must not exist): the same,
 *   minus the contacts holding the keys (read through contact_facets' GIN index);
 * - a follow-up's frozen list (campaign_audience_contacts): its rows, grouped by key, less
 *   the contacts now holding an excluded tag of its filter.
 * The freeze always classifies the contacts (`classified`); tests hold both to the same figures
 * after every kind of write.
 */
export async function countAudience(db: Db, rules: AudienceRules): Promise<AudienceCounts> {
  // An explicit campaign's staged recipients carry their key: counted like a frozen list.
  if (rules.explicitOf != null) {
    return db
      .transaction((tx) =>
        countMatched(
          tx,
          rules,
          sql`select e.phone_key from campaign_explicit_recipients e where e.campaign_id = ${rules.explicitOf}::int and e.user_id = ${rules.userId}::int`,
        ),
      )
      .catch((err: unknown) => {
        if (pgCode(err) === '57014') throw new AppError(503, PREFLIGHT_TIMED_OUT);
        throw err;
      });
  }
  // Validates the filter (schema, parameter budget) exactly as the freeze will.
  contactFilterSql({ userId: rules.userId, accountId: filterAccount(rules), filter: rules.filters });
  const filter = contactFilterSchema.parse(rules.filters);
  const groups = facetKeyGroups(filter);
  const search = narrowSearchSql(filter.searchQuery);
  return db
    .transaction(async (tx) => {
      // Hash the audience in memory rather than spill it to disk (the default 4 MB spills at a
      // few hundred thousand contacts); `set local` ends with this transaction.
      await tx.execute(sql`set local work_mem = '64MB'`);
      // Bounded like every query a user can trigger (DB_STATEMENT_TIMEOUT_MS): a pre-flight the
      // database stops answers with a Spanish 503 instead of holding a connection.
      // A follow-up's frozen list: its rows carry the phone key each contact was reached at.
      if (rules.contactListOf != null) {
        return countMatched(
          tx,
          rules,
          sql`select l.phone_key from campaign_audience_contacts l
            where l.campaign_id = ${rules.contactListOf}::int and l.user_id = ${rules.userId}::int ${listExclusionSql(rules)}`,
        );
      }
      if (!search && groups.length === 0) return countWholeAccount(tx, rules);
      // Only a "none of them" condition (excluded tags, a field that must not exist): every
      // contact minus the ones holding the keys, so the cost follows those few, not the account.
      if (!search && groups.length === 1 && groups[0]!.negated) {
        const held = await facetMatch((q) => rowsOf(tx, q), { userId: rules.userId, accountId: filterAccount(rules) }, [
          { ...groups[0]!, negated: false },
        ]);
        return countWholeAccount(tx, rules, held && sql`select f.phone_key from ${held.from} where ${held.where}`);
      }
      const match = await facetMatch((q) => rowsOf(tx, q), { userId: rules.userId, accountId: filterAccount(rules) }, groups, search);
      if (!match) return { matched: 0, attempted: 0, excluded: noExclusions(), prefixes: [] };
      return countMatched(tx, rules, sql`select f.phone_key from ${match.from} where ${match.where}`);
    })
    .catch((err: unknown) => {
      // 57014: the statement timeout stopped it (PostgreSQL; PGlite has none).
      if (pgCode(err) === '57014') throw new AppError(503, PREFLIGHT_TIMED_OUT);
      throw err;
    });
}

/** A key as a phone libphonenumber can place: digits get their "+"; a BSUID stays as it is. */
const sampleOfKey = (key: string): string => (/^\d/.test(key) ? `+${key}` : key);

/** The +1 prefixes (country code and area code, 4 characters) of the United States. */
const US_PREFIXES = new Set(US_AREA_CODES.map((npa) => `1${npa}`));

/**
 * The keys the blacklist and the opt-outs name (by phone key, by BSUID, or by the BSUID learned
 * for a phone key), as `blocked (k)`, and the frequency-capped keys as `capped (phone_key)` (none
 * unless the template is marketing and the tenant has a cap).
 */
function blockedAndCappedCtes(r: AudienceRules): SQL {
  const capped = r.marketing && r.cap ? cappedKeysSql(r.userId, r.cap) : sql`select null::text as phone_key where false`;
  const blockedBsuids = sql`select b.bsuid from blacklist b where b.user_id = ${r.userId}::int ${blacklistScope(r)} and b.bsuid is not null
      union select o.bsuid from opt_outs o where o.user_id = ${r.userId}::int and o.bsuid is not null`;
  return sql`blocked as (
      select b.phone_key as k from blacklist b where b.user_id = ${r.userId}::int ${blacklistScope(r)} and b.phone_key is not null
      union select o.phone_key from opt_outs o where o.user_id = ${r.userId}::int and o.phone_key is not null
      union select bsuid from (${blockedBsuids}) bb
      union select cb.phone_key from contact_bsuids cb where cb.user_id = ${r.userId}::int and cb.bsuid in (${blockedBsuids})
    ),
    capped as (${capped})`;
}

/** The flagged people's reason before the US rule: blacklisted wins over the cap. */
const FLAG_REASON = sql`case when p.phone_key in (select k from blocked) then 'blacklisted' else 'frequency_cap' end`;

interface PrefixRow {
  prefix: string;
  people: number | string;
  contacts: number | string;
  sample: string | null;
}
interface FlaggedRow {
  prefix: string;
  reason: string;
  people: number | string;
}

/**
 * The classifier's order over prefix counts: invalid (matched minus contacts with a key),
 * duplicates (contacts minus people), then per person blacklist, US marketing (the US prefixes'
 * rest), frequency cap, template; the rest are attempted, by prefix with a sample key.
 */
function tallyPrefixes(r: AudienceRules, matched: number, prefixRows: PrefixRow[], flagged: FlaggedRow[]): AudienceCounts {
  const excluded = noExclusions();
  let valid = 0;
  let people = 0;
  const left = new Map<string, { people: number; sample: string }>();
  for (const row of prefixRows) {
    valid += Number(row.contacts);
    people += Number(row.people);
    const sample = row.sample && row.sample.startsWith(row.prefix) ? row.sample : row.prefix;
    left.set(row.prefix, { people: Number(row.people), sample });
  }
  excluded.invalid_phone = matched - valid;
  excluded.duplicate = valid - people;
  const us = (prefix: string) => r.marketing && US_PREFIXES.has(prefix);
  for (const f of flagged) {
    const entry = left.get(f.prefix);
    if (!entry) continue;
    const n = Number(f.people);
    if (f.reason === 'blacklisted') excluded.blacklisted += n;
    else if (us(f.prefix)) continue; // US marketing comes before the cap: counted with its prefix below
    else excluded.frequency_cap += n;
    entry.people -= n;
  }
  const prefixes: AudienceCounts['prefixes'] = [];
  let attempted = 0;
  for (const [prefix, entry] of left) {
    if (entry.people <= 0) continue;
    if (us(prefix)) excluded.us_marketing += entry.people;
    else if (r.templateUnfit) excluded.template_unfit += entry.people;
    else {
      attempted += entry.people;
      prefixes.push({ sample: sampleOfKey(entry.sample), count: entry.people });
    }
  }
  return { matched, attempted, excluded, prefixes };
}

/**
 * A filtered audience (`select phone_key …` from the narrow tables) in one pass: grouped by
 * person, each person probed against the blocked and capped keys (two small hash tables), then
 * counted by prefix. The null key's row is the contacts without a valid phone.
 */
async function countMatched(tx: Queryable, r: AudienceRules, audience: SQL): Promise<AudienceCounts> {
  const rows = await rowsOf<PrefixRow & { blacklisted: number | string; capped: number | string }>(
    tx,
    sql`with ${blockedAndCappedCtes(r)}
        select left(p.phone_key, 4) as prefix, count(*)::int as people, sum(p.n)::int as contacts,
          min(p.phone_key collate "C") as sample,
          count(*) filter (where b.k is not null)::int as blacklisted,
          count(*) filter (where b.k is null and c.phone_key is not null)::int as capped
        from (select a.phone_key, count(*)::int as n from (${audience}) a group by a.phone_key) p
        left join (select distinct k from blocked) b on b.k = p.phone_key
        left join (select distinct phone_key from capped) c on c.phone_key = p.phone_key
        group by 1`,
  );
  let matched = 0;
  const prefixRows: PrefixRow[] = [];
  const flagged: FlaggedRow[] = [];
  for (const row of rows) {
    matched += Number(row.contacts);
    if (row.prefix === null) continue; // the contacts without a valid phone
    prefixRows.push(row);
    if (Number(row.blacklisted) > 0) flagged.push({ prefix: row.prefix, reason: 'blacklisted', people: row.blacklisted });
    if (Number(row.capped) > 0) flagged.push({ prefix: row.prefix, reason: 'frequency_cap', people: row.capped });
  }
  return tallyPrefixes(r, matched, prefixRows, flagged);
}

/**
 * Every contact of an account: the maintained prefix counts, and index probes for the flagged
 * keys. With `without` (`select phone_key …` of the contacts to leave out), those contacts are
 * taken off: grouped by key, a person leaves when all of its contacts do (its `contact_people.n`),
 * and a flagged person only counts while some of its contacts stay.
 */
async function countWholeAccount(tx: Queryable, r: AudienceRules, without?: SQL | null): Promise<AudienceCounts> {
  const account = sql`${filterAccount(r)}::int`;
  // The left-out contacts by key (the null key: those without a valid phone), and by prefix the
  // contacts and the people they take away.
  const heldCte = without
    ? sql`held as (select w.phone_key, count(*)::int as n from (${without}) w group by w.phone_key),
      gone as (
        select left(h.phone_key, 4) as prefix, sum(h.n)::int as contacts, (count(*) filter (where h.n >= q.n))::int as people
        from held h join contact_people q on q.account_id = ${account} and q.phone_key = h.phone_key
        group by 1
      )`
    : sql`held as (select null::text as phone_key, 0 as n where false),
      gone as (select null::text as prefix, 0 as contacts, 0 as people where false)`;
  // One statement, so the left-out contacts (`held`) are read once: the matched total, the
  // prefix counts, and one index probe per flagged key (offset 0 keeps it a probe: hashing the
  // account's people would read all of them).
  const rows = await rowsOf<{ kind: 'total' | 'prefix' | 'flag'; prefix: string; reason: string; people: number | string; contacts: number | string; sample: string | null }>(
    tx,
    sql`with ${blockedAndCappedCtes(r)}, ${heldCte}
        select 'total' as kind, null::text as prefix, null::text as reason,
          ((select k.n from contact_key_counts k where k.account_id = ${account} and k.key = '#')
            - (select coalesce(sum(h.n), 0) from held h))::bigint as people,
          0::bigint as contacts, null::text as sample
        union all
        select 'prefix', x.prefix, null, (x.people - coalesce(g.people, 0))::bigint, (x.contacts - coalesce(g.contacts, 0))::bigint,
          (select p.phone_key from contact_people p where p.account_id = x.account_id and p.phone_key >= x.prefix
            order by p.phone_key limit 1)
        from contact_people_prefixes x left join gone g on g.prefix = x.prefix
        where x.account_id = ${account} and x.contacts > 0
        union all
        select 'flag', left(p.phone_key, 4), ${FLAG_REASON}, count(*)::bigint, 0::bigint, null
        from (select k from blocked union select phone_key from capped) f
        cross join lateral (select q.phone_key, q.n from contact_people q
          where q.account_id = ${account} and q.phone_key = f.k offset 0) p
        left join held h on h.phone_key = p.phone_key
        where p.n > coalesce(h.n, 0)
        group by 2, 3`,
  );
  const matched = Number(rows.find((row) => row.kind === 'total')?.people ?? 0);
  const prefixRows: PrefixRow[] = rows.filter((row) => row.kind === 'prefix');
  const flagged: FlaggedRow[] = rows.filter((row) => row.kind === 'flag');
  return tallyPrefixes(r, matched, prefixRows, flagged);
}

/** A phone's country (ISO 3166 alpha-2), or a BSUID's country prefix; null when unknown. */
export function countryOfRecipient(phone: string): string | null {
  if (/^[A-Z]{2}\./.test(phone)) return phone.slice(0, 2);
  return parsePhoneNumberFromString(phone)?.country ?? null;
}
