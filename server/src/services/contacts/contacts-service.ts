import { asc, eq, sql } from 'drizzle-orm';
import type { ContactFilterInput } from '@masivo/contract/contact-filter';
import type { CustomFieldInfo, FieldValue, FilterOptions } from '@masivo/contract/contacts';
import type { Db } from '../../db/client';
import { rowsOf } from '../../db/sql';
import { contactTags, kommoCustomFields } from '../../db/schema/kommo';
import { ownedAccount } from './account-access';
import { CONTACT_COLUMNS, contactFilterSql, likePattern, listContacts, toContactRow, type ContactRow } from './filter-engine';
import { createCountCache, type CountOptions, type ScreenCount } from './count-cache';
import { contactDataVersion, createVersionedCache } from './data-version';

/** Filter panels hold a few dozen fields; values per field are the most common ones. */
export const FILTER_OPTIONS_MAX_FIELDS = 200;
export const FILTER_OPTIONS_MAX_VALUES = 100;

interface Page {
  limit: number;
  offset: number;
}

/** Fields whose values the sync keeps in custom_fields (phone and email have their own columns). */
async function filterableFields(db: Db, accountId: number, phoneFieldId: number): Promise<CustomFieldInfo[]> {
  const list = await db
    .select()
    .from(kommoCustomFields)
    .where(eq(kommoCustomFields.accountId, accountId))
    .orderBy(asc(kommoCustomFields.fieldId));
  const seen = new Set<string>();
  const out: CustomFieldInfo[] = [];
  for (const f of list) {
    if (f.fieldId === phoneFieldId || f.code === 'EMAIL' || seen.has(f.name)) continue;
    seen.add(f.name);
    out.push({ id: f.fieldId, name: f.name, type: f.type, code: f.code });
  }
  return out;
}

/**
 * GET /contacts without an account: the user's own rows only, through contacts_user_idx
 * (0009_contacts.sql), so the walk never reads another tenant's contacts; the offset is bounded.
 */
export function userContactsSql(userId: number, page: Page) {
  return {
    list: sql`select ${CONTACT_COLUMNS} from contacts c where c.user_id = ${userId} order by c.id limit ${page.limit} offset ${page.offset}`,
    count: sql`select count(*)::int n from contacts c where c.user_id = ${userId}`,
  };
}

export function createContactsService(db: Db, opts: CountOptions & { reads?: Db } = {}) {
  // Figures, lists and values come from `reads` (the read replica's `ctx.readDb` when the route
  // passes it); the account's ownership is asked of `db`, the primary, so an account connected a
  // moment ago is never a 404.
  const reads = opts.reads ?? db;
  // Spec §9 caches the recipient count for 30 s; keyed by the data version instead (count-cache.ts),
  // every count is answered from memory until the account's contacts change, and is never stale.
  const counts = createCountCache(reads, opts);
  const cachedCount = counts.count;
  const filterOptionsCache = createVersionedCache<FilterOptions>(500);

  return {
    ownedAccount: (userId: number, accountId: number) => ownedAccount(db, userId, accountId),

    async filtered(userId: number, accountId: number, filter: ContactFilterInput, page: Page) {
      await ownedAccount(db, userId, accountId);
      const p = { userId, accountId, filter };
      const [contacts, total] = await Promise.all([listContacts(reads, { ...p, ...page }), cachedCount(userId, accountId, filter)]);
      return { contacts, total: total.count, ...(total.approximate ? { total_approximate: true } : {}), limit: page.limit, offset: page.offset };
    },

    /** GET /contacts: one account's contacts, or every account of the user when none is named. */
    async list(userId: number, accountId: number | undefined, page: Page) {
      if (accountId !== undefined) return this.filtered(userId, accountId, {}, page);
      const q = userContactsSql(userId, page);
      const [list, [{ n }]] = await Promise.all([rowsOf<Parameters<typeof toContactRow>[0]>(reads, q.list), rowsOf<{ n: number }>(reads, q.count)]);
      return { contacts: list.map(toContactRow), total: Number(n), limit: page.limit, offset: page.offset };
    },

    async count(userId: number, accountId: number, filter: ContactFilterInput): Promise<ScreenCount> {
      await ownedAccount(db, userId, accountId);
      return cachedCount(userId, accountId, filter);
    },

    /** The campaign form asks on every keystroke: the same question is answered from memory. */
    async recipientCount(userId: number, accountId: number, filter: ContactFilterInput): Promise<ScreenCount> {
      await ownedAccount(db, userId, accountId);
      return cachedCount(userId, accountId, filter);
    },

    async tags(userId: number, accountId: number): Promise<string[]> {
      await ownedAccount(db, userId, accountId);
      const list = await reads
        .select({ name: contactTags.name })
        .from(contactTags)
        .where(eq(contactTags.accountId, accountId))
        .orderBy(asc(contactTags.name));
      return list.map((t) => t.name);
    },

    async customFields(userId: number, accountId: number): Promise<CustomFieldInfo[]> {
      const account = await ownedAccount(db, userId, accountId);
      return filterableFields(reads, accountId, account.phoneFieldId);
    },

    /**
     * Distinct values of one field with how many contacts hold each, most common first.
     * With a filter, the counts are those of the contacts the filter selects.
     */
    async fieldValues(
      userId: number,
      accountId: number,
      field: string,
      opts: { filter?: ContactFilterInput; search?: string; limit: number },
    ): Promise<FieldValue[]> {
      await ownedAccount(db, userId, accountId);
      const where = contactFilterSql({ userId, accountId, filter: opts.filter ?? {} });
      const search = opts.search?.trim() ? sql`and (c.custom_fields ->> ${field}) ilike ${likePattern(opts.search.trim())}` : sql``;
      const list = await rowsOf<{ value: string; count: number }>(
        reads,
        sql`select c.custom_fields ->> ${field} as value, count(*)::int as count
            from contacts c where ${where} and c.custom_fields ? ${field} ${search}
            group by 1 order by 2 desc, 1 limit ${opts.limit}`,
      );
      return list.map((v) => ({ value: v.value, count: Number(v.count) }));
    },

    /**
     * Everything a filter panel needs in one call: tags, fields with their common values, total.
     * The values read every contact of the account, so the answer is kept per data version.
     */
    async filterOptions(userId: number, accountId: number): Promise<FilterOptions> {
      const account = await ownedAccount(db, userId, accountId);
      const version = await contactDataVersion(reads, accountId);
      return filterOptionsCache.get(accountId, version, String(userId), async () => {
        const fields = (await filterableFields(reads, accountId, account.phoneFieldId)).slice(0, FILTER_OPTIONS_MAX_FIELDS);
        const names = fields.map((f) => f.name);
        const [tagList, values, [{ n }]] = await Promise.all([
          this.tags(userId, accountId),
          names.length === 0
            ? Promise.resolve([])
            : rowsOf<{ key: string; value: string; total_values: number }>(
                reads,
                sql`select key, value, total_values from (
                      select key, value, row_number() over (partition by key order by n desc, value) as rn,
                             count(*) over (partition by key) as total_values
                      from (select kv.key, kv.value, count(*) as n
                            from contacts c cross join lateral jsonb_each_text(c.custom_fields) kv
                            where c.user_id = ${userId} and c.account_id = ${accountId}
                              and kv.key = any(array[${sql.join(
                                names.map((name) => sql`${name}`),
                                sql`, `,
                              )}]::text[])
                            group by 1, 2) counted) ranked
                    where rn <= ${FILTER_OPTIONS_MAX_VALUES} order by key, rn`,
              ),
          rowsOf<{ n: number }>(reads, sql`select count(*)::int n from contacts c where c.user_id = ${userId} and c.account_id = ${accountId}`),
        ]);
        const byField = new Map<string, { values: string[]; total: number }>();
        for (const v of values) {
          const entry = byField.get(v.key) ?? { values: [], total: Number(v.total_values) };
          entry.values.push(v.value);
          byField.set(v.key, entry);
        }
        return {
          tags: tagList,
          customFields: fields.map((f) => ({
            name: f.name,
            type: f.type,
            values: byField.get(f.name)?.values ?? [],
            total_values: byField.get(f.name)?.total ?? 0,
          })),
          total_contacts: Number(n),
        };
      });
    },

    async exportFieldNames(userId: number, accountId: number): Promise<string[]> {
      return (await this.customFields(userId, accountId)).map((f) => f.name);
    },
  };
}

export type ContactsService = ReturnType<typeof createContactsService>;
export type { ContactRow };
