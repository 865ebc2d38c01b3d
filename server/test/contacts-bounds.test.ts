import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { contactFilterSchema, FILTER_LIMITS, type ContactFilterInput } from '@masivo/contract/contact-filter';
import { contactFilterSql, FILTER_PARAMETER_BUDGET, filterParameterCount, MAX_BIND_PARAMETERS } from '../src/services/contacts/filter-engine';
import { countByFacets, facetKeyGroups } from '../src/services/contacts/facet-count';
import { userContactsSql } from '../src/services/contacts/contacts-service';
import { createTestApp, type TestApp } from './helpers/app';
import { rowsOf } from '../src/db/sql';

/**
 * Security review H2 (filter caps) and H3 (contacts half): every filter is bounded, listings
 * never walk other tenants' rows or unbounded offsets, and filter options are cached per data version.
 */
let t: TestApp;
let owner: { headers: { authorization: string }; userId: number };
let accountId: number;
const dialect = new PgDialect();

async function addContacts(userId: number, account: number, from: number, n: number, fields: Record<string, string> = { Plan: 'Pro' }) {
  await t.ctx.db.execute(sql`insert into contacts (user_id, account_id, kommo_id, name, tags, custom_fields)
    select ${userId}, ${account}, g, 'Contacto ' || g, array['vip'], ${JSON.stringify(fields)}::jsonb
    from generate_series(${from}::int, ${from + n - 1}::int) g`);
}

beforeAll(async () => {
  t = await createTestApp();
  owner = await t.signUp();
  // Creating an account may try Kommo; the row is what matters here.
  const [{ id }] = await rowsOf<{ id: number }>(t.ctx.db,
    sql`insert into kommo_accounts (user_id, subdomain, access_token_enc, phone_field_id) values (${owner.userId}, 'dueno', 'x', 1) returning id`,
  );
  accountId = id;
  await t.ctx.db.execute(sql`insert into kommo_custom_fields (account_id, user_id, field_id, name, type) values
    (${accountId}, ${owner.userId}, 10, 'Plan', 'select'), (${accountId}, ${owner.userId}, 11, 'Ciudad', 'text')`);
  await addContacts(owner.userId, accountId, 1, 2_000);
  await t.ctx.db.execute(sql`analyze contacts`);
}, 60_000);
afterAll(() => t.close());

const get = (url: string, h = owner.headers) => t.app.inject({ method: 'GET', url, headers: h });
const filtered = (q: Record<string, string>) => get(`/api/contacts/${accountId}/filtered?${new URLSearchParams(q)}`);
const fields = (n: number, f: (i: number) => unknown = () => ({ mode: 'exists' })) =>
  JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [`Campo ${i}`, f(i)])));

function expectSpanish400(res: { statusCode: number; json(): { error: string } }, pattern: RegExp) {
  expect(res.statusCode).toBe(400);
  expect(res.json().error).toMatch(pattern);
}

describe('filter bounds answer a Spanish 400', () => {
  it('accepts the largest filter and refuses one more custom-field filter', async () => {
    expect((await filtered({ customFieldFilters: fields(FILTER_LIMITS.customFields) })).statusCode).toBe(200);
    expectSpanish400(await filtered({ customFieldFilters: fields(FILTER_LIMITS.customFields + 1) }), /Demasiados filtros de campos personalizados/);
  });

  it('counts tags and specific values together against one budget', async () => {
    const tags = Array.from({ length: 1_500 }, (_, i) => `t${i}`);
    const values = Array.from({ length: 500 }, (_, i) => `v${i}`);
    const ok = { tags: JSON.stringify(tags), customFieldFilters: JSON.stringify({ Plan: { mode: 'specific', values } }) };
    expect((await filtered(ok)).statusCode).toBe(200);
    const over = { ...ok, customFieldFilters: JSON.stringify({ Plan: { mode: 'specific', values: [...values, 'uno más'] } }) };
    expectSpanish400(await filtered(over), /Demasiados valores en el filtro/);
    expectSpanish400(await filtered({ tags: JSON.stringify([...tags, ...values, 'x']) }), /Demasiados valores en el filtro/);
  });

  it('refuses over-long texts before anything else reads them', async () => {
    expectSpanish400(await filtered({ searchQuery: 'a'.repeat(201) }), /búsqueda es demasiado larga/);
    expectSpanish400(await filtered({ customFieldFilters: JSON.stringify({ ['c'.repeat(201)]: { mode: 'exists' } }) }), /Nombre de campo demasiado largo|Llave inválida/);
    expectSpanish400(
      await filtered({ customFieldFilters: JSON.stringify({ Ciudad: { mode: 'manual', manualValue: 'x'.repeat(501) } }) }),
      /Valor de filtro demasiado largo/,
    );
  });

  it('applies the same bounds to counts, recipient counts, field values and exports', async () => {
    const big = fields(FILTER_LIMITS.customFields + 1);
    for (const url of [
      `/api/contacts/${accountId}/count?customFieldFilters=${encodeURIComponent(big)}`,
      `/api/contacts/recipient-count?account_id=${accountId}&customFieldFilters=${encodeURIComponent(big)}`,
      `/api/contacts/${accountId}/custom-fields/Plan/values/filtered?customFieldFilters=${encodeURIComponent(big)}`,
    ]) {
      expectSpanish400(await get(url), /Demasiados filtros/);
    }
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/contacts/${accountId}/export`,
      headers: owner.headers,
      payload: { tags: Array.from({ length: FILTER_LIMITS.values + 1 }, (_, i) => `t${i}`) },
    });
    expectSpanish400(res, /Demasiados valores/);
    expect(() => contactFilterSchema.parse({ customFieldFilters: JSON.parse(big) })).toThrow();
  });

  it('keeps the largest allowed filter far below PostgreSQL’s 65,535 bind parameters', async () => {
    // Worst case: every value spent on tags, every field a "text contains" (3 parameters each),
    // and a numeric search (2 parameters).
    const worst: ContactFilterInput = {
      searchQuery: '11 2345',
      tags: Array.from({ length: FILTER_LIMITS.values }, (_, i) => `t${i}`),
      tagOperator: 'AND',
      customFieldFilters: Object.fromEntries(
        Array.from({ length: FILTER_LIMITS.customFields }, (_, i) => [`Campo ${i}`, { mode: 'manual', manualValue: 'abc' }]),
      ),
    };
    const rendered = dialect.sqlToQuery(contactFilterSql({ userId: 1, accountId: 1, filter: worst }));
    expect(rendered.params.length).toBe(2 + 2 + FILTER_LIMITS.values + 3 * FILTER_LIMITS.customFields);
    expect(rendered.params.length).toBe(filterParameterCount(contactFilterSchema.parse(worst)));
    expect(rendered.params.length).toBeLessThanOrEqual(FILTER_PARAMETER_BUDGET);
    expect(FILTER_PARAMETER_BUDGET * 2 + 100).toBeLessThan(MAX_BIND_PARAMETERS);

    // The facet path spends two parameters per specific value (field and value) plus one per group.
    const facetWorst = contactFilterSchema.parse({
      tags: [],
      customFieldFilters: Object.fromEntries(
        Array.from({ length: FILTER_LIMITS.customFields }, (_, i) => [
          `Campo ${i}`,
          { mode: 'specific', values: Array.from({ length: FILTER_LIMITS.values / FILTER_LIMITS.customFields }, (_, k) => `v${k}`) },
        ]),
      ),
    });
    const counts: number[] = [];
    await countByFacets(
      async (q: SQL) => {
        counts.push(dialect.sqlToQuery(q).params.length);
        // Every key resolves to an id, so the count statement carries them all.
        return [Object.fromEntries(Array.from({ length: FILTER_LIMITS.customFields }, (_, i) => [`g${i}`, Array.from({ length: 40 }, (_, k) => i * 40 + k)]))];
      },
      { userId: 1, accountId: 1 },
      facetKeyGroups(facetWorst)!,
    );
    expect(Math.max(...counts)).toBeLessThanOrEqual(2 * FILTER_LIMITS.values + FILTER_LIMITS.customFields + 2);
    expect(Math.max(...counts)).toBeLessThan(MAX_BIND_PARAMETERS);
  });
});

describe('contacts listings are bounded and tenant-scoped', () => {
  it('refuses offsets past 10,000 on every listing', async () => {
    for (const url of [
      `/api/contacts?offset=10001`,
      `/api/contacts?account_id=${accountId}&offset=10001`,
      `/api/contacts/${accountId}/filtered?offset=10001`,
      `/api/contacts/${accountId}/advanced-filtered?offset=10001`,
    ]) {
      expectSpanish400(await get(url), /offset no puede superar 10000/);
    }
    expect((await get(`/api/contacts/${accountId}/filtered?offset=10000`)).statusCode).toBe(200);
  });

  it('a fresh tenant’s GET /api/contacts reads none of another tenant’s rows', async () => {
    const fresh = await t.signUp();
    const res = await get('/api/contacts?limit=100&offset=10000', fresh.headers);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ contacts: [], total: 0 });

    const q = userContactsSql(fresh.userId, { limit: 100, offset: 10_000 });
    for (const query of [q.list, q.count]) {
      const plan = await explain(query);
      // Whatever plan is chosen, no row of the owner's 2,000 may be read and thrown away.
      expect(plan.removed, JSON.stringify(plan.text)).toBe(0);
      expect(plan.read, JSON.stringify(plan.text)).toBe(0);
    }
    // The owner still sees their own rows through the same route.
    const mine = await get('/api/contacts?limit=5', owner.headers);
    expect(mine.json().total).toBe(2_000);
    expect(mine.json().contacts).toHaveLength(5);
  });
});

/** Rows the executor read from contacts (scan nodes) and rows filters threw away, summed over the plan. */
async function explain(query: SQL): Promise<{ read: number; removed: number; text: unknown }> {
  const [row] = await rowsOf<Record<string, unknown>>(t.ctx.db, sql`explain (analyze, format json) ${query}`);
  const raw = Object.values(row)[0];
  const doc = (typeof raw === 'string' ? JSON.parse(raw) : raw) as Array<{ Plan: PlanNode }>;
  let read = 0;
  let removed = 0;
  const walk = (n: PlanNode) => {
    if (/Scan/.test(n['Node Type']) && n['Relation Name'] === 'contacts') read += n['Actual Rows'] * (n['Actual Loops'] ?? 1);
    removed += n['Rows Removed by Filter'] ?? 0;
    for (const c of n.Plans ?? []) walk(c);
  };
  walk(doc[0].Plan);
  return { read, removed, text: doc };
}
interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Rows': number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

describe('filter options', () => {
  it('are cached per data version: a change to contacts shows at once', async () => {
    const url = `/api/contacts/${accountId}/filter-options`;
    const before = (await get(url)).json();
    expect(before.customFields.find((f: { name: string }) => f.name === 'Plan').values).toEqual(['Pro']);
    expect(before.total_contacts).toBe(2_000);

    await addContacts(owner.userId, accountId, 5_001, 1, { Plan: 'Empresa', Ciudad: 'Rosario' });
    const afterInsert = (await get(url)).json();
    expect(afterInsert.total_contacts).toBe(2_001);
    expect(afterInsert.customFields.find((f: { name: string }) => f.name === 'Plan').values).toEqual(['Pro', 'Empresa']);
    expect(afterInsert.customFields.find((f: { name: string }) => f.name === 'Ciudad').values).toEqual(['Rosario']);

    await t.ctx.db.execute(sql`update contacts set custom_fields = '{"Plan":"Básico"}' where account_id = ${accountId} and kommo_id = 5001`);
    const afterUpdate = (await get(url)).json();
    expect(afterUpdate.customFields.find((f: { name: string }) => f.name === 'Plan').values).toContain('Básico');
    expect(afterUpdate.customFields.find((f: { name: string }) => f.name === 'Ciudad').values).toEqual([]);

    await t.ctx.db.execute(sql`delete from contacts where account_id = ${accountId} and kommo_id = 5001`);
    const afterDelete = (await get(url)).json();
    expect(afterDelete.total_contacts).toBe(2_000);
    expect(afterDelete).toEqual(before);
  });

  it('counts follow the data too, and deleting an account with contacts still works', async () => {
    const count = async (acc: number) => (await get(`/api/contacts/${acc}/count?tags=${encodeURIComponent('["vip"]')}`)).json().count;
    const [{ id: second }] = await rowsOf<{ id: number }>(t.ctx.db,
      sql`insert into kommo_accounts (user_id, subdomain, access_token_enc, phone_field_id) values (${owner.userId}, 'segunda', 'x', 1) returning id`,
    );
    await addContacts(owner.userId, second, 1, 10);
    expect(await count(second)).toBe(10);
    await addContacts(owner.userId, second, 11, 5);
    expect(await count(second)).toBe(15);
    await t.ctx.db.execute(sql`delete from kommo_accounts where id = ${second}`);
    expect((await rowsOf(t.ctx.db, sql`select 1 from contacts where account_id = ${second}`)).length).toBe(0);
    expect((await get(`/api/contacts/${second}/count`)).statusCode).toBe(404);
  });
});
