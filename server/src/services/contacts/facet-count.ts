import { sql, type SQL } from 'drizzle-orm';
import { isCustomFieldFilterActive, type ContactFilter } from '@masivo/contract/contact-filter';
import { likePattern } from './search-text';
import { tagClauses } from './tag-clauses';
import { intArray } from '../../db/sql';

/**
 * Tag and field conditions as "filter keys" (0002_kommo.sql): 't' || tag, 'f' || field,
 * 'v' || jsonb_build_array(field, value)::text, built in SQL exactly as contact_filter_key_texts()
 * builds them. A narrow per-contact row (contact_facets) holds the ids of its keys, and
 * contact_key_counts (0010_contact_counts.sql) how many contacts of the account hold each key.
 */

/** One membership test: the contact holds at least one of the keys (or, negated, none of them). */
export interface KeyGroup {
  /** Listed keys; for "text contains", the values are found in contact_key_counts instead. */
  keys: SQL[];
  contains?: { field: string; pattern: string };
  negated: boolean;
  /** No contact holds two of the keys (one key, or values of one field): their counts add up. */
  exclusive: boolean;
}

type Execute = (query: SQL) => Promise<Record<string, unknown>[]>;

/**
 * "Text contains" on one field: the account's values of that field that contain the text, read
 * from its keys instead of its contacts. A contact matches exactly when its value's key is one of
 * them: `->> 1` of the key is `custom_fields ->> field`, and `ilike` is the same test.
 */
function containedValueKeys(accountId: number, c: { field: string; pattern: string }): SQL {
  // '["Ciudad", ' — every value key of the field starts so, whatever the value's type. Only those
  // keys are JSON: the case keeps the planner from parsing a tag or field key.
  const prefix = sql`'v' || left(jsonb_build_array(${c.field}::text, '')::text, -3)`;
  return sql`array(select k.key from contact_key_counts k
    where k.account_id = ${accountId} and k.n > 0
      and case when starts_with(k.key, ${prefix}) then ((substr(k.key, 2)::jsonb) ->> 1) ilike ${c.pattern} else false end)`;
}

/** The group's keys as one text[] expression. */
export function keyArraySql(g: KeyGroup, accountId: number): SQL {
  if (g.contains) return containedValueKeys(accountId, g.contains);
  return sql`array[${sql.join(g.keys, sql`, `)}]::text[]`;
}

/** The filter's tag and field conditions as key groups (the search is not one of them). */
export function facetKeyGroups(filter: ContactFilter): KeyGroup[] {
  const groups: KeyGroup[] = [];
  const keyOf = (t: string) => sql`'t' || ${t}::text`;
  for (const { holds, tags } of tagClauses(filter)) {
    if (holds === 'all') for (const t of tags) groups.push({ keys: [keyOf(t)], negated: false, exclusive: true });
    else groups.push({ keys: tags.map(keyOf), negated: holds === 'none', exclusive: tags.length === 1 });
  }
  for (const [field, f] of Object.entries(filter.customFieldFilters)) {
    if (!isCustomFieldFilterActive(f)) continue;
    const fieldKey = sql`'f' || ${field}::text`;
    if (f.mode === 'exists') groups.push({ keys: [fieldKey], negated: false, exclusive: true });
    else if (f.mode === 'notExists') groups.push({ keys: [fieldKey], negated: true, exclusive: true });
    else if (f.mode === 'specific') {
      const values = [...new Set(f.values ?? [])];
      const keys = values.map((v) => sql`'v' || jsonb_build_array(${field}::text, ${v}::text)::text`);
      groups.push({ keys, negated: false, exclusive: true });
    } else if (f.mode === 'manual') {
      const text = (f.manualValue ?? f.value ?? '').trim();
      groups.push({ keys: [], contains: { field, pattern: likePattern(text) }, negated: false, exclusive: true });
    }
  }
  return groups;
}

/**
 * The contact_facets rows (`f`) holding every group and, optionally, matching `search` (a
 * condition over `contact_search s`), as a FROM and a WHERE; null when no contact can match.
 * The key ids are resolved first (one statement), so the planner sees constant arrays and can
 * estimate the match.
 */
export async function facetMatch(
  execute: Execute,
  p: { userId: number; accountId: number },
  groups: KeyGroup[],
  search?: SQL | null,
): Promise<{ from: SQL; where: SQL } | null> {
  const columns = groups.map(
    (g, i) => sql`array(select k.id from contact_filter_keys k
      where k.account_id = ${p.accountId} and k.key = any(${keyArraySql(g, p.accountId)}) order by k.id) as ${sql.raw(`g${i}`)}`,
  );
  const [resolved] = columns.length > 0 ? await execute(sql`select ${sql.join(columns, sql`, `)}`) : [{}];
  const parts: SQL[] = [sql`f.user_id = ${p.userId}`, sql`f.account_id = ${p.accountId}`];
  for (const [i, g] of groups.entries()) {
    const ids = ((resolved?.[`g${i}`] as Array<number | string> | null) ?? []).map(Number);
    if (ids.length === 0) {
      if (g.negated) continue; // nobody holds the key: "none of them" is every contact
      return null; // nobody holds any of the keys
    }
    parts.push(g.negated ? sql`not (f.key_ids && ${intArray(ids)})` : sql`f.key_ids && ${intArray(ids)}`);
  }
  const join = search ? sql` join contact_search s on s.contact_id = f.contact_id and ${search}` : sql``;
  return { from: sql`contact_facets f${join}`, where: sql.join(parts, sql` and `) };
}

/** Counts contact_facets rows holding every group, optionally also matching `search`. */
export async function countByFacets(
  execute: Execute,
  p: { userId: number; accountId: number },
  groups: KeyGroup[],
  search?: SQL,
): Promise<number> {
  const match = await facetMatch(execute, p, groups, search);
  if (!match) return 0;
  const [row] = await execute(sql`select count(*)::int as n from ${match.from} where ${match.where}`);
  return Number(row?.n ?? 0);
}

/** How many of the account's contacts hold any of the keys, when no contact holds two of them. */
export async function countByKeys(execute: Execute, p: { userId: number; accountId: number }, keys: SQL): Promise<number> {
  const [row] = await execute(sql`select coalesce(sum(k.n), 0)::bigint as n from contact_key_counts k
    where k.account_id = ${p.accountId} and k.key = any(${keys})
      and exists (select 1 from kommo_accounts a where a.id = ${p.accountId} and a.user_id = ${p.userId})`);
  return Number(row?.n ?? 0);
}

/** '#' is held by every contact (contact_counted_keys in 0010_contact_counts.sql). */
export const EVERY_CONTACT_KEY = sql`array['#']::text[]`;
