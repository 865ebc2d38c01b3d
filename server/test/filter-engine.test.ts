import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { ContactFilterInput } from '@masivo/contract/contact-filter';
import { contactFilterSql, countContacts, listContacts } from '../src/services/contacts/filter-engine';
import { createTestApp, type TestApp } from './helpers/app';
import { rowsOf } from '../src/db/sql';

/**
 * The filter engine against a small hand-made account, so each expected set is obvious.
 * The same function serves the contacts screen, exports and campaign audiences.
 */
let t: TestApp;
let userId: number;
let accountId: number;
let otherAccountId: number;

interface Seed {
  kommo: number;
  name: string;
  phone?: string;
  phoneRaw?: string;
  email?: string;
  tags?: string[];
  fields?: Record<string, string>;
}

const CONTACTS: Seed[] = [
  { kommo: 1, name: 'Ana Pérez', phone: '+5491112345678', phoneRaw: '+54 9 11 1234-5678', email: 'ana@example.com', tags: ['vip', 'cliente'], fields: { Ciudad: 'Córdoba', Plan: 'Pro' } },
  { kommo: 2, name: 'Bruno Díaz', phone: '+525512345678', phoneRaw: '55 1234 5678', email: 'bruno@corp.mx', tags: ['cliente'], fields: { Ciudad: 'Monterrey', Plan: 'Básico' } },
  { kommo: 3, name: 'Carla Gómez', email: 'carla@example.com', tags: ['vip'], fields: { Plan: 'Empresa' } },
  { kommo: 4, name: 'Diego 100%_real', phone: '+573101234567', tags: [], fields: {} },
  { kommo: 5, name: 'Elena "La" Ruiz', phone: '+34699887766', tags: ['lead'], fields: { Origen: 'Web "oficial"', Ciudad: 'Córdoba del Sur' } },
];

async function insert(account: number, c: Seed) {
  await t.ctx.db.execute(sql`insert into contacts (user_id, account_id, kommo_id, name, phone, phone_raw, email, tags, custom_fields)
    values (${userId}, ${account}, ${c.kommo}, ${c.name}, ${c.phone ?? null}, ${c.phoneRaw ?? null}, ${c.email ?? null},
      array[${sql.join((c.tags ?? []).map((x) => sql`${x}`).concat(sql`''`), sql`, `)}]::text[],
      ${JSON.stringify(c.fields ?? {})}::jsonb)`);
}

beforeAll(async () => {
  t = await createTestApp();
  ({ userId } = await t.signUp());
  const ids = [];
  for (const sub of ['uno', 'dos']) {
    const [row] = (await rowsOf<{ id: number }>(t.ctx.db,
      sql`insert into kommo_accounts (user_id, subdomain, access_token_enc, phone_field_id) values (${userId}, ${sub}, 'x', 1) returning id`,
    ));
    ids.push(row.id);
  }
  [accountId, otherAccountId] = ids;
  for (const c of CONTACTS) await insert(accountId, c);
  await t.ctx.db.execute(sql`update contacts set tags = array_remove(tags, '')`);
  // Same person in another account: never counted for the first one.
  await insert(otherAccountId, CONTACTS[0]);
});
afterAll(() => t.close());

async function kommoIds(filter: ContactFilterInput): Promise<number[]> {
  const rows = await listContacts(t.ctx.db, { userId, accountId, filter, limit: 100, offset: 0 });
  const count = await countContacts(t.ctx.db, { userId, accountId, filter });
  expect(count).toBe(rows.length);
  return rows.map((r) => r.kommo_id);
}

describe('contact filter engine', () => {
  it('returns every contact of the account for an empty filter, in a stable order', async () => {
    expect(await kommoIds({})).toEqual([1, 2, 3, 4, 5]);
  });

  it('searches name, email, E.164 and raw phone, case-insensitively', async () => {
    expect(await kommoIds({ searchQuery: 'pérez' })).toEqual([1]);
    expect(await kommoIds({ searchQuery: 'EXAMPLE.COM' })).toEqual([1, 3]);
    expect(await kommoIds({ searchQuery: '1234-5678' })).toEqual([1, 2]);
    expect(await kommoIds({ searchQuery: '5491112345678' })).toEqual([1]);
    expect(await kommoIds({ searchQuery: '11 1234 5678' })).toEqual([1]);
  });

  it('treats % and _ in the search as literal characters', async () => {
    expect(await kommoIds({ searchQuery: '100%_' })).toEqual([4]);
    expect(await kommoIds({ searchQuery: '%' })).toEqual([4]);
  });

  it('filters tags with AND and OR', async () => {
    expect(await kommoIds({ tags: ['vip', 'cliente'], tagOperator: 'AND' })).toEqual([1]);
    expect(await kommoIds({ tags: ['vip', 'cliente'], tagOperator: 'OR' })).toEqual([1, 2, 3]);
    expect(await kommoIds({ tags: ['lead'] })).toEqual([5]);
    expect(await kommoIds({ tags: ['nadie'] })).toEqual([]);
  });

  it('leaves out the contacts holding any excluded tag, beside the included tags', async () => {
    expect(await kommoIds({ excludedTags: ['vip'] })).toEqual([2, 4, 5]);
    expect(await kommoIds({ excludedTags: ['vip', 'lead'] })).toEqual([2, 4]);
    expect(await kommoIds({ tags: ['cliente'], excludedTags: ['vip'] })).toEqual([2]);
    expect(await kommoIds({ tags: ['vip', 'cliente'], tagOperator: 'AND', excludedTags: ['lead'] })).toEqual([1]);
    expect(await kommoIds({ tags: ['vip'], excludedTags: ['vip'] })).toEqual([]);
    // A tag nobody holds leaves everyone in; a contact without tags is never left out.
    expect(await kommoIds({ excludedTags: ['nadie'] })).toEqual([1, 2, 3, 4, 5]);
    expect(await kommoIds({ searchQuery: 'a', excludedTags: ['cliente'], customFieldFilters: { Plan: { mode: 'exists' } } })).toEqual([3]);
  });

  it('applies every custom field mode', async () => {
    expect(await kommoIds({ customFieldFilters: { Plan: { mode: 'specific', values: ['Pro', 'Empresa'] } } })).toEqual([1, 3]);
    expect(await kommoIds({ customFieldFilters: { Ciudad: { mode: 'manual', manualValue: 'córdoba' } } })).toEqual([1, 5]);
    expect(await kommoIds({ customFieldFilters: { Origen: { mode: 'manual', manualValue: '"oficial"' } } })).toEqual([5]);
    expect(await kommoIds({ customFieldFilters: { Ciudad: { mode: 'exists' } } })).toEqual([1, 2, 5]);
    expect(await kommoIds({ customFieldFilters: { Ciudad: { mode: 'notExists' } } })).toEqual([3, 4]);
    // Inactive filters narrow nothing (spec §5).
    expect(await kommoIds({ customFieldFilters: { Ciudad: { mode: 'manual', manualValue: '   ' } } })).toEqual([1, 2, 3, 4, 5]);
    expect(await kommoIds({ customFieldFilters: { Plan: { mode: 'specific', values: [] } } })).toEqual([1, 2, 3, 4, 5]);
    expect(await kommoIds({ customFieldFilters: { Plan: { mode: 'none' } } })).toEqual([1, 2, 3, 4, 5]);
  });

  it('combines search, tags and fields with AND', async () => {
    expect(
      await kommoIds({
        searchQuery: 'a',
        tags: ['cliente', 'lead'],
        tagOperator: 'OR',
        customFieldFilters: { Ciudad: { mode: 'manual', manualValue: 'Córdoba' }, Plan: { mode: 'notExists' } },
      }),
    ).toEqual([5]);
  });

  it('pages with limit and offset', async () => {
    const page = await listContacts(t.ctx.db, { userId, accountId, filter: {}, limit: 2, offset: 2 });
    expect(page.map((r) => r.kommo_id)).toEqual([3, 4]);
    expect(page[0]).toMatchObject({ name: 'Carla Gómez', tags_array: ['vip'], custom_fields: { Plan: 'Empresa' } });
  });

  it("never returns another user's contacts", async () => {
    expect(await countContacts(t.ctx.db, { userId: userId + 1000, accountId, filter: {} })).toBe(0);
    // Tag/field-only filters are counted from contact_facets: scoped the same way.
    expect(await countContacts(t.ctx.db, { userId: userId + 1000, accountId, filter: { tags: ['vip'] } })).toBe(0);
    expect(await countContacts(t.ctx.db, { userId, accountId: otherAccountId, filter: { tags: ['vip'] } })).toBe(1);
  });

  it('keeps tag/field counts right when contacts change or go away', async () => {
    const filters: ContactFilterInput[] = [
      { tags: ['vip', 'nuevo'], tagOperator: 'OR' },
      { tags: ['vip', 'nuevo'], tagOperator: 'AND' },
      { tags: ['vip', 'nadie'], tagOperator: 'AND' },
      { customFieldFilters: { Plan: { mode: 'specific', values: ['Pro', 'Ninguno'] }, Ciudad: { mode: 'notExists' } } },
      { customFieldFilters: { Origen: { mode: 'specific', values: ['Web "oficial"'] } } },
      { customFieldFilters: { Nadie: { mode: 'notExists' } }, tags: ['cliente'] },
      { excludedTags: ['nuevo', 'cliente'] },
    ];
    const before = await Promise.all(filters.map((f) => kommoIds(f)));
    expect(before).toEqual([[1, 3], [], [], [], [5], [1, 2], [3, 4, 5]]);
    await t.ctx.db.execute(sql`update contacts set tags = array['vip', 'nuevo'], custom_fields = '{"Plan": "Pro"}'
      where account_id = ${accountId} and kommo_id = 4`);
    await t.ctx.db.execute(sql`delete from contacts where account_id = ${accountId} and kommo_id = 3`);
    const after = await Promise.all(filters.map((f) => kommoIds(f)));
    expect(after).toEqual([[1, 4], [4], [], [4], [5], [1, 2], [5]]);
    // Put the account back as the other tests expect it.
    await t.ctx.db.execute(sql`delete from contacts where account_id = ${accountId} and kommo_id = 4`);
    await insert(accountId, CONTACTS[3]);
    await insert(accountId, CONTACTS[2]);
    await t.ctx.db.execute(sql`update contacts set tags = array_remove(tags, '')`);
  });

  it('binds every value and field name as a parameter', () => {
    const evil = "x'; drop table contacts; --";
    const query = new PgDialect().sqlToQuery(
      contactFilterSql({
        userId,
        accountId,
        filter: { searchQuery: evil, tags: [evil], customFieldFilters: { [evil]: { mode: 'exists' } } },
      }),
    );
    expect(query.sql).not.toContain('drop table');
    expect(query.params).toContain(evil);
  });

  it('refuses a malformed filter', () => {
    expect(() =>
      contactFilterSql({ userId, accountId, filter: { customFieldFilters: { Plan: { mode: 'parecido' } } } as never }),
    ).toThrow();
  });
});
