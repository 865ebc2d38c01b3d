import { sql, type SQL } from 'drizzle-orm';
import {
  contactFilterSchema,
  FILTER_MESSAGES,
  isCustomFieldFilterActive,
  type ContactFilter,
  type ContactFilterInput,
  type CustomFieldFilter,
} from '@masivo/contract/contact-filter';
import type { Contact } from '@masivo/contract/contacts';
import type { Db } from '../../db/client';
import { rowsOf, withoutJit } from '../../db/sql';
import { badRequest } from '../../lib/errors';
import { exactCount } from './exact-count';
import { contactSearchSql, likePattern } from './search-text';
import { tagClauses, type TagClause } from './tag-clauses';

export { likePattern, SEARCH_TEXT } from './search-text';

/**
 * The one implementation of the spec's contact filter. The contacts screen, counts,
 * exports and campaign audiences all build their WHERE clause here, so they agree.
 *
 * Every condition is written to hit an index of 0002_kommo.sql:
 * - search: trigram GIN on SEARCH_TEXT (the exact same expression);
 * - tags: GIN on tags (`@>` for AND, `&&` for OR; excluded tags are `not &&`, tag-clauses.ts);
 * - custom fields: GIN (jsonb_ops) on custom_fields (`@>` for specific values, `?` for exists),
 *   and trigram GIN on custom_fields::text as a pre-filter for "text contains".
 * Values are always bound parameters; field names too.
 */

export type ContactRow = Contact;

export interface FilterParams {
  userId: number;
  accountId: number;
  filter: ContactFilter | ContactFilterInput;
}

const FIELDS_TEXT = sql.raw('(c.custom_fields::text)');

/** PostgreSQL's protocol counts a statement's bind parameters in 16 bits. */
export const MAX_BIND_PARAMETERS = 65_535;
/**
 * What one filter may use, leaving room for the statement around it (paging, the audience
 * freeze, facet look-ups double a value). FILTER_LIMITS keep any valid filter far below it.
 */
export const FILTER_PARAMETER_BUDGET = 10_000;

/** Bind parameters contactFilterSql uses for a parsed filter (the worst case, before de-duplication). */
export function filterParameterCount(filter: ContactFilter): number {
  let n = 2; // user and account
  if (filter.searchQuery.trim()) n += 2; // text, and the digits alone
  n += filter.tags.length + filter.excludedTags.length;
  for (const f of Object.values(filter.customFieldFilters)) {
    if (!isCustomFieldFilterActive(f)) continue;
    if (f.mode === 'specific') n += (f.values ?? []).length;
    else if (f.mode === 'manual') n += 3; // pre-filter pattern, field name, pattern
    else n += 1;
  }
  return n;
}

/** A WHERE condition over `contacts c`: the user's account plus the filter. */
export function contactFilterSql(p: FilterParams): SQL {
  const filter = contactFilterSchema.parse(p.filter);
  if (filterParameterCount(filter) > FILTER_PARAMETER_BUDGET) throw badRequest(FILTER_MESSAGES.tooManyValues);
  const parts: SQL[] = [sql`c.user_id = ${p.userId}`, sql`c.account_id = ${p.accountId}`];
  const search = contactSearchSql(filter.searchQuery);
  if (search) parts.push(search);
  for (const clause of tagClauses(filter)) parts.push(tagCondition(clause));
  for (const [field, f] of Object.entries(filter.customFieldFilters)) {
    const cond = customFieldCondition(field, f);
    if (cond) parts.push(cond);
  }
  return sql.join(parts, sql` and `);
}

function textArray(values: string[]): SQL {
  return sql`array[${sql.join(
    values.map((v) => sql`${v}`),
    sql`, `,
  )}]::text[]`;
}

/** `contacts.tags` is never null (default '{}'), so "none of them" is simply `not &&`. */
function tagCondition(clause: TagClause): SQL {
  const tags = textArray(clause.tags);
  if (clause.holds === 'all') return sql`c.tags @> ${tags}`;
  if (clause.holds === 'any') return sql`c.tags && ${tags}`;
  return sql`not (c.tags && ${tags})`;
}

/** Field values are stored as non-empty text, so "exists" is simply the key being present. */
function customFieldCondition(field: string, f: CustomFieldFilter): SQL | null {
  if (!isCustomFieldFilterActive(f)) return null;
  switch (f.mode) {
    case 'exists':
      return sql`c.custom_fields ? ${field}`;
    case 'notExists':
      return sql`not (c.custom_fields ? ${field})`;
    case 'specific': {
      const values = [...new Set(f.values ?? [])];
      const each = values.map((v) => sql`c.custom_fields @> ${JSON.stringify({ [field]: v })}::jsonb`);
      return sql`(${sql.join(each, sql` or `)})`;
    }
    case 'manual': {
      const text = (f.manualValue ?? f.value ?? '').trim();
      const exact = sql`(c.custom_fields ->> ${field}) ilike ${likePattern(text)}`;
      // The whole-document trigram index narrows the rows first; the exact test then checks
      // the field. jsonb text escapes quotes and backslashes, so such terms skip the pre-filter.
      if (text.length >= 3 && !/["\\]/.test(text)) return sql`(${FIELDS_TEXT} ilike ${likePattern(text)} and ${exact})`;
      return exact;
    }
    default:
      return null;
  }
}

export const CONTACT_COLUMNS = sql.raw(
  `c.id, c.kommo_id, c.name, c.first_name, c.last_name, c.phone, c.phone_raw, c.email, c.tags as tags_array, c.custom_fields`,
);

interface RawContact {
  id: number | string;
  kommo_id: number | string;
  name: string;
  first_name: string;
  last_name: string;
  phone: string | null;
  phone_raw: string | null;
  email: string | null;
  tags_array: string[] | null;
  custom_fields: Record<string, string> | string;
}

/** bigint columns come back as strings from node-postgres and jsonb as text from some drivers. */
export function toContactRow(r: RawContact): ContactRow {
  return {
    id: Number(r.id),
    kommo_id: Number(r.kommo_id),
    name: r.name,
    first_name: r.first_name,
    last_name: r.last_name,
    phone: r.phone,
    phone_raw: r.phone_raw,
    email: r.email,
    tags_array: Array.isArray(r.tags_array) ? r.tags_array : [],
    custom_fields: typeof r.custom_fields === 'string' ? JSON.parse(r.custom_fields) : (r.custom_fields ?? {}),
  };
}

/** Filter statements run without JIT: see `withoutJit` for why. */
function rows<T>(db: Db, query: SQL): Promise<T[]> {
  return withoutJit(db, (tx) => rowsOf<T>(tx, query));
}

/** The exact count, from the narrow tables kept by triggers (exact-count.ts); never a cached figure. */
export async function countContacts(db: Db, p: FilterParams): Promise<number> {
  const filter = contactFilterSchema.parse(p.filter);
  if (filterParameterCount(filter) > FILTER_PARAMETER_BUDGET) throw badRequest(FILTER_MESSAGES.tooManyValues);
  return withoutJit(db, (tx) => exactCount((query: SQL) => rowsOf(tx, query), p, filter));
}

/** One page, in a stable order (the sync order) so paging neither skips nor repeats. */
export async function listContacts(
  db: Db,
  p: FilterParams & { limit: number; offset: number },
): Promise<ContactRow[]> {
  const list = await rows<RawContact>(
    db,
    sql`select ${CONTACT_COLUMNS} from contacts c where ${contactFilterSql(p)}
        order by c.id limit ${p.limit} offset ${p.offset}`,
  );
  return list.map(toContactRow);
}
