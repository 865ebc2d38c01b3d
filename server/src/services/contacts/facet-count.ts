import { sql, type SQL } from 'drizzle-orm';
import { isCustomFieldFilterActive, type ContactFilter } from '@masivo/contract/contact-filter';

/**
 * Counting from contact_facets (0002_kommo.sql): a narrow per-contact row holding the ids of its
 * filter keys, kept by a trigger on contacts. A large match (a common tag, a field most contacts
 * have) then reads about a third of the pages the contacts heap would cost.
 *
 * Only tag and field conditions that are plain key membership can be answered there; a filter
 * with a search or a "text contains" field stays on contacts (countContacts decides).
 *
 * Key strings are built in SQL exactly as contact_filter_key_texts() builds them:
 * 't' || tag, 'f' || field, 'v' || jsonb_build_array(field, value)::text.
 */

/** One membership test: the contact holds at least one of `keys` (or, negated, none of them). */
interface KeyGroup {
  keys: SQL[];
  negated: boolean;
}

type Execute = (query: SQL) => Promise<Record<string, unknown>[]>;

/** The filter as key groups, or null when some active condition needs the contacts table. */
export function facetKeyGroups(filter: ContactFilter): KeyGroup[] | null {
  if (filter.searchQuery.trim() !== '') return null;
  const groups: KeyGroup[] = [];
  const tags = [...new Set(filter.tags)];
  if (tags.length > 0) {
    const keyOf = (t: string) => sql`'t' || ${t}::text`;
    if (filter.tagOperator === 'AND') for (const t of tags) groups.push({ keys: [keyOf(t)], negated: false });
    else groups.push({ keys: tags.map(keyOf), negated: false });
  }
  for (const [field, f] of Object.entries(filter.customFieldFilters)) {
    if (!isCustomFieldFilterActive(f)) continue;
    const fieldKey = sql`'f' || ${field}::text`;
    if (f.mode === 'exists') groups.push({ keys: [fieldKey], negated: false });
    else if (f.mode === 'notExists') groups.push({ keys: [fieldKey], negated: true });
    else if (f.mode === 'specific') {
      const values = [...new Set(f.values ?? [])];
      groups.push({ keys: values.map((v) => sql`'v' || jsonb_build_array(${field}::text, ${v}::text)::text`), negated: false });
    } else return null;
  }
  return groups.length > 0 ? groups : null;
}

function intArray(ids: number[]): SQL {
  return sql`array[${sql.join(
    ids.map((id) => sql`${id}`),
    sql`, `,
  )}]::int[]`;
}

/**
 * Two statements: the key ids first (so the planner sees constant arrays and can estimate the
 * match and choose a parallel scan), then the count.
 */
export async function countByFacets(
  execute: Execute,
  p: { userId: number; accountId: number },
  groups: KeyGroup[],
): Promise<number> {
  const columns = groups.map(
    (g, i) => sql`array(select k.id from contact_filter_keys k
      where k.account_id = ${p.accountId} and k.key = any(array[${sql.join(g.keys, sql`, `)}]) order by k.id) as ${sql.raw(`g${i}`)}`,
  );
  const [resolved] = await execute(sql`select ${sql.join(columns, sql`, `)}`);
  const parts: SQL[] = [sql`f.user_id = ${p.userId}`, sql`f.account_id = ${p.accountId}`];
  for (const [i, g] of groups.entries()) {
    const ids = ((resolved?.[`g${i}`] as Array<number | string> | null) ?? []).map(Number);
    if (ids.length === 0) {
      if (g.negated) continue; // nobody holds the key: "none of them" is every contact
      return 0; // nobody holds any of the keys
    }
    parts.push(g.negated ? sql`not (f.key_ids && ${intArray(ids)})` : sql`f.key_ids && ${intArray(ids)}`);
  }
  const [row] = await execute(sql`select count(*)::int as n from contact_facets f where ${sql.join(parts, sql` and `)}`);
  return Number(row?.n ?? 0);
}
