import { sql, type SQL } from 'drizzle-orm';
import type { ContactFilter } from '@masivo/contract/contact-filter';
import { countByFacets, countByKeys, EVERY_CONTACT_KEY, facetKeyGroups, keyArraySql, type KeyGroup } from './facet-count';
import { narrowSearchSql } from './search-text';

type Execute = (query: SQL) => Promise<Record<string, unknown>[]>;

/**
 * The exact count of a filter, from the narrow tables only (never the contacts heap):
 * - no search and one condition that is a key or a set of values of one field ("exists", a tag,
 *   "specific" values, "text contains"): a look-up in contact_key_counts;
 *   "not exists" is every contact minus those holding the field; two tags ORed add up their
 *   counts minus the contacts holding both (one indexed intersection);
 * - excluded tags alone ("none of them"): every contact minus those holding any of them, counted
 *   as above (one tag: a look-up; more: contact_facets through its GIN index, so the cost follows
 *   the excluded contacts, not the account);
 * - other tag/field combinations: contact_facets and its GIN index on key ids;
 * - a search alone: contact_search (its trigram index serves rare terms);
 * - a search with conditions: contact_facets joined with contact_search.
 */
export async function exactCount(execute: Execute, p: { userId: number; accountId: number }, filter: ContactFilter): Promise<number> {
  const groups = facetKeyGroups(filter);
  const search = narrowSearchSql(filter.searchQuery);
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
    if (!g.negated) return countHolding(execute, p, g);
    return (await countByKeys(execute, p, EVERY_CONTACT_KEY)) - (await countHolding(execute, p, { ...g, negated: false }));
  }
  return countByFacets(execute, p, groups);
}

/** Contacts holding any key of one group, by the cheapest exact path. */
async function countHolding(execute: Execute, p: { userId: number; accountId: number }, g: KeyGroup): Promise<number> {
  if (g.exclusive) return countByKeys(execute, p, keyArraySql(g, p.accountId));
  if (g.keys.length === 2) {
    const [a, b] = g.keys.map((k) => ({ keys: [k], negated: false, exclusive: true }));
    const [na, nb] = [await countByKeys(execute, p, keyArraySql(a, p.accountId)), await countByKeys(execute, p, keyArraySql(b, p.accountId))];
    return na + nb - (await countByFacets(execute, p, [a, b]));
  }
  return countByFacets(execute, p, [g]);
}

