import type { ContactFilter } from '@masivo/contract/contact-filter';

/**
 * What the filter asks of a contact's tags, in one place: the contacts list, exports, the
 * estimate and the freeze turn these into SQL over `contacts.tags` (filter-engine.ts), the exact
 * counts and the pre-flight into filter keys over the narrow tables (facet-count.ts).
 * - `all`: holds every tag (the included tags with "Y (Todas)");
 * - `any`: holds at least one (the included tags with "O (Alguna)");
 * - `none`: holds none of them (the excluded tags, "Sin las etiquetas"), whatever else matches.
 */
export interface TagClause {
  holds: 'all' | 'any' | 'none';
  /** De-duplicated, never empty. */
  tags: string[];
}

export function tagClauses(filter: Pick<ContactFilter, 'tags' | 'tagOperator' | 'excludedTags'>): TagClause[] {
  const clauses: TagClause[] = [];
  const included = [...new Set(filter.tags)];
  if (included.length > 0) clauses.push({ holds: filter.tagOperator === 'AND' ? 'all' : 'any', tags: included });
  const excluded = [...new Set(filter.excludedTags ?? [])];
  if (excluded.length > 0) clauses.push({ holds: 'none', tags: excluded });
  return clauses;
}
