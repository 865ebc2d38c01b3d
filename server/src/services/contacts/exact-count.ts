import { sql, type SQL } from 'drizzle-orm';
import type { ContactFilter } from '@masivo/contract/contact-filter';
import { countByFacets, countByKeys, EVERY_CONTACT_KEY, facetKeyGroups, keyArraySql } from './facet-count';
import { narrowSearchSql } from './search-text';

type Execute = (query: SQL) => Promise<Record<string, unknown>[]>;

/**
 * The exact count of a filter, from the narrow tables only (never the contacts heap):
 * - no search and one condition that is a key or a set of values of one field ("exists", a tag,
 *   "specific" values, "text contains"): a look-up in contact_key_counts;
 *   "not exists" is every contact minus those holding the field; two tags ORed add up their
 *   counts minus the contacts holding both (one indexed intersection);
 * - other tag/field combinations: contact_facets and its GIN index on key ids;
 * - a search alone: contact_search (its trigram index serves rare terms);
 * - a search with conditions: contact_facets joined with contact_search.
 */
export async function exactCount(execute: Execute, p: { userId: number; accountId: number }, filter: ContactFilter): Promise<number> {
  const groups = facetKeyGroups(filter);
  const search = narrowSearchSql(filter.searchQuery);
  const keys = (g: (typeof groups)[number]) => keyArraySql(g, p.accountId);
  if (search) {
    if (groups.length > 0) return countByFacets(execute, p, groups, search);
    const [row] = await execute(
      sql`select count(*)::int as n from contact_search s where s.user_id = ${p.userId} and s.account_id = ${p.accountId} and ${search}`,
    );
    return Number(row?.n ?? 0);
  }
  if (groups.length === 0) return countByKeys(execute, p, EVERY_CONTACT_KEY);
  if (groups.length === 1) {
    const [g] = groups;
    if (g.exclusive && !g.negated) return countByKeys(execute, p, keys(g));
    if (g.exclusive && g.negated) return (await countByKeys(execute, p, EVERY_CONTACT_KEY)) - (await countByKeys(execute, p, keys(g)));
    if (!g.negated && g.keys.length === 2) {
      const [a, b] = g.keys.map((k) => ({ keys: [k], negated: false, exclusive: true }));
      const [na, nb] = [await countByKeys(execute, p, keys(a)), await countByKeys(execute, p, keys(b))];
      return na + nb - (await countByFacets(execute, p, [a, b]));
    }
  }
  return countByFacets(execute, p, groups);
}

