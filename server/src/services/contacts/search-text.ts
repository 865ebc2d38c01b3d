import { sql, type SQL } from 'drizzle-orm';

/**
 * The free-text search of the contacts filter. Over `contacts c` it is `SEARCH_TEXT ilike …`;
 * over the narrow `contact_search s` (0010_contact_counts.sql, the same text already lowercased)
 * it is `s.search like lower(…)`. PostgreSQL's ILIKE on UTF-8 lowercases both sides and then
 * matches as LIKE does, so both select the same contacts.
 */

/** Must stay identical to the expression of contacts_search_trgm in 0002_kommo.sql. */
export const SEARCH_TEXT = sql.raw(
  `(c.name || ' ' || coalesce(c.email, '') || ' ' || coalesce(c.phone, '') || ' ' || coalesce(c.phone_raw, ''))`,
);

/** `%` and `_` typed by the operator are literal characters, not wildcards. */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (ch) => '\\' + ch)}%`;
}

/** The patterns a search term matches: the text, and for a phone-like term its digits alone. */
export function searchPatterns(raw: string): string[] {
  const text = raw.trim();
  if (!text) return [];
  // "11 1234-5678" should find "+5491112345678": also try the digits alone.
  const digits = text.replace(/\D/g, '');
  if (/^[\d\s()+\-.]+$/.test(text) && digits.length >= 3 && digits !== text) return [likePattern(text), likePattern(digits)];
  return [likePattern(text)];
}

/** The search as a condition over `contacts c` (uses the trigram index on SEARCH_TEXT). */
export function contactSearchSql(raw: string): SQL | null {
  const each = searchPatterns(raw).map((pattern) => sql`${SEARCH_TEXT} ilike ${pattern}`);
  return each.length === 0 ? null : sql`(${sql.join(each, sql` or `)})`;
}

/** The same search over `contact_search s`. */
export function narrowSearchSql(raw: string): SQL | null {
  const each = searchPatterns(raw).map((pattern) => sql`s.search like lower(${pattern})`);
  return each.length === 0 ? null : sql`(${sql.join(each, sql` or `)})`;
}
