import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import type { ContactFilterInput } from '@masivo/contract/contact-filter';
import { createKommoTestEnv, waitForSync, type KommoTestEnv } from './helpers/kommo';
import { rowsOf } from '../src/db/sql';
import { parseCsv } from './helpers/csv';

/**
 * Every contacts call against one synced simulator account. Each filter is checked against a
 * plain JavaScript reading of the spec over all rows, and every call that counts must agree.
 */
let env: KommoTestEnv;
let headers: { authorization: string };
let other: { authorization: string };
let accountId: number;
let emptyAccountId: number;

interface Row {
  id: number;
  name: string;
  phone: string | null;
  phone_raw: string | null;
  email: string | null;
  tags: string[];
  custom_fields: Record<string, string>;
}
let all: Row[] = [];

beforeAll(async () => {
  env = await createKommoTestEnv();
  env.sim.addAccount({ subdomain: 'contactos', token: 'tok', contacts: 700, seed: 3 });
  env.sim.updateContact('contactos', 5, { name: '=HYPERLINK("http://x")', tags: ['vip', 'cliente'], custom: { Ciudad: '+Córdoba, "centro"' } });
  env.sim.updateContact('contactos', 6, { name: 'Ñandú Pérez', email: '@raro@example.com', tags: ['vip'] });
  ({ headers } = await env.t.signUp());
  ({ headers: other } = await env.t.signUp());
  const phoneFieldId = env.sim.fields('contactos').phoneFieldId;
  let res = await env.t.app.inject({ method: 'POST', url: '/api/kommo/accounts', headers, payload: { subdomain: 'contactos', access_token: 'tok', phone_field_id: phoneFieldId } });
  accountId = res.json().id;
  res = await env.t.app.inject({ method: 'POST', url: '/api/kommo/accounts', headers, payload: { subdomain: 'vacia', access_token: 'tok', phone_field_id: 1 } });
  emptyAccountId = res.json().id;
  env.startRunner();
  await env.t.app.inject({ method: 'POST', url: '/api/kommo/sync-contacts', headers, payload: { account_id: accountId } });
  const status = await waitForSync(env.t, headers, accountId);
  expect(status.sync_total_contacts).toBe(700);
  all = (
    await rowsOf<Row & { id: string }>(env.t.ctx.db,
      sql`select id, name, phone, phone_raw, email, tags, custom_fields from contacts where account_id = ${accountId} order by id`,
    )
  ).map((r) => ({ ...r, id: Number(r.id) }));
});
afterAll(() => env.close());

const get = (url: string, h = headers) => env.t.app.inject({ method: 'GET', url, headers: h });
const post = (url: string, payload: unknown, h = headers) => env.t.app.inject({ method: 'POST', url, headers: h, payload: payload as never });

function query(f: ContactFilterInput & { limit?: number; offset?: number }): string {
  const q = new URLSearchParams();
  if (f.searchQuery !== undefined) q.set('searchQuery', f.searchQuery);
  if (f.tags !== undefined) q.set('tags', JSON.stringify(f.tags));
  if (f.tagOperator !== undefined) q.set('tagOperator', f.tagOperator);
  if (f.customFieldFilters !== undefined) q.set('customFieldFilters', JSON.stringify(f.customFieldFilters));
  if (f.limit !== undefined) q.set('limit', String(f.limit));
  if (f.offset !== undefined) q.set('offset', String(f.offset));
  return q.toString();
}

/** The spec's filter, read literally. */
function reference(f: ContactFilterInput): Row[] {
  const s = (f.searchQuery ?? '').trim().toLowerCase();
  return all.filter((c) => {
    if (s && ![c.name, c.email, c.phone, c.phone_raw].some((v) => (v ?? '').toLowerCase().includes(s))) return false;
    const tags = f.tags ?? [];
    if (tags.length && (f.tagOperator === 'AND' ? !tags.every((t) => c.tags.includes(t)) : !tags.some((t) => c.tags.includes(t)))) return false;
    for (const [field, cf] of Object.entries(f.customFieldFilters ?? {})) {
      const v = c.custom_fields[field] ?? '';
      if (cf.mode === 'exists' && !v) return false;
      if (cf.mode === 'notExists' && v) return false;
      if (cf.mode === 'specific' && (cf.values ?? []).length && !(cf.values ?? []).includes(v)) return false;
      if (cf.mode === 'manual' && (cf.manualValue ?? '').trim() && !v.toLowerCase().includes(cf.manualValue!.trim().toLowerCase())) return false;
    }
    return true;
  });
}

function tagCounts() {
  const counts = new Map<string, number>();
  for (const c of all) for (const t of c.tags) counts.set(t, (counts.get(t) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([t]) => t);
}


describe('contacts API', () => {
  it('filters exactly as the spec reads, and /filtered, /count, /recipient-count and /advanced-filtered agree', async () => {
    const [t1, t2] = tagCounts();
    const city = all.find((c) => c.custom_fields.Ciudad)!.custom_fields.Ciudad;
    const filters: ContactFilterInput[] = [
      {},
      { searchQuery: 'ana' },
      { searchQuery: all[10].phone ?? all[11].phone ?? '' },
      { searchQuery: '@example' },
      { tags: [t1, t2], tagOperator: 'AND' },
      { tags: [t1, t2], tagOperator: 'OR' },
      { customFieldFilters: { Plan: { mode: 'specific', values: ['Pro', 'Empresa'] } } },
      { customFieldFilters: { Ciudad: { mode: 'manual', manualValue: city.slice(1, 4) } } },
      { customFieldFilters: { Origen: { mode: 'exists' } } },
      { customFieldFilters: { Origen: { mode: 'notExists' } } },
      { searchQuery: 'a', tags: [t1, t2], tagOperator: 'OR', customFieldFilters: { Plan: { mode: 'specific', values: ['Pro'] }, Ciudad: { mode: 'exists' } } },
    ];
    for (const f of filters) {
      const expected = reference(f);
      const label = JSON.stringify(f);
      const page = await get(`/api/contacts/${accountId}/filtered?${query({ ...f, limit: 100 })}`);
      expect(page.statusCode, label).toBe(200);
      expect(page.json().total, label).toBe(expected.length);
      expect(page.json().contacts.map((c: Row) => c.id), label).toEqual(expected.slice(0, 100).map((c) => c.id));
      expect((await get(`/api/contacts/${accountId}/count?${query(f)}`)).json(), label).toEqual({ count: expected.length });
      expect((await get(`/api/contacts/recipient-count?account_id=${accountId}&${query(f)}`)).json(), label).toEqual({ count: expected.length });
      const adv = (await get(`/api/contacts/${accountId}/advanced-filtered?${query({ ...f, limit: 10 })}`)).json();
      expect(adv.total, label).toBe(expected.length);
      expect(adv.has_more, label).toBe(expected.length > 10);
    }
    expect(reference(filters[4]).length).toBeGreaterThan(0);
    expect(reference(filters[10]).length).toBeGreaterThan(0);
  });

  it('pages with limit and offset, default 20, never more than 100', async () => {
    const first = (await get(`/api/contacts/${accountId}/filtered`)).json();
    expect(first).toMatchObject({ total: 700, limit: 20, offset: 0 });
    expect(first.contacts).toHaveLength(20);
    const third = (await get(`/api/contacts/${accountId}/filtered?limit=50&offset=100`)).json();
    expect(third.contacts.map((c: Row) => c.id)).toEqual(all.slice(100, 150).map((c) => c.id));
    const last = (await get(`/api/contacts/${accountId}/filtered?limit=100&offset=650`)).json();
    expect(last.contacts).toHaveLength(50);
    expect((await get(`/api/contacts/${accountId}/filtered?limit=101`)).statusCode).toBe(400);
    const c = first.contacts[0];
    expect(Object.keys(c).sort()).toEqual(['custom_fields', 'email', 'first_name', 'id', 'kommo_id', 'last_name', 'name', 'phone', 'phone_raw', 'tags_array'].sort());
  });

  it('lists contacts of one account or of all the accounts of the user', async () => {
    const one = (await get(`/api/contacts?account_id=${accountId}&limit=10`)).json();
    expect(one.total).toBe(700);
    expect(one.contacts).toHaveLength(10);
    const every = (await get('/api/contacts?limit=5&offset=5')).json();
    expect(every.total).toBe(700);
    expect(every.contacts.map((r: Row) => r.id)).toEqual(all.slice(5, 10).map((r) => r.id));
    expect((await get('/api/contacts', other)).json().total).toBe(0);
  });

  it('caches the recipient count until the contacts change (never a stale figure)', async () => {
    const f = query({ tags: ['vip'] });
    const before = (await get(`/api/contacts/recipient-count?account_id=${accountId}&${f}`)).json().count;
    await env.t.ctx.db.execute(sql`update contacts set tags = array_append(tags, 'vip') where account_id = ${accountId} and not ('vip' = any(tags)) and id in (select id from contacts where account_id = ${accountId} order by id limit 3)`);
    expect((await get(`/api/contacts/${accountId}/count?${f}`)).json().count).toBe(before + 3);
    expect((await get(`/api/contacts/recipient-count?account_id=${accountId}&${f}`)).json().count).toBe(before + 3);
    // A different filter is a different question.
    expect((await get(`/api/contacts/recipient-count?account_id=${accountId}&${query({ tags: ['vip'], tagOperator: 'AND' })}`)).json().count).toBe(before + 3);
    await env.t.ctx.db.execute(sql`update contacts set tags = array_remove(tags, 'vip') where account_id = ${accountId} and id in (select id from contacts where account_id = ${accountId} order by id limit 3) and id not in (5, 6)`);
    all = (await rowsOf<Row & { id: string }>(env.t.ctx.db, sql`select id, name, phone, phone_raw, email, tags, custom_fields from contacts where account_id = ${accountId} order by id`)).map((r) => ({ ...r, id: Number(r.id) }));
  });

  it('lists tags and filterable custom fields', async () => {
    const tags = (await get(`/api/contacts/${accountId}/tags`)).json();
    expect(tags).toEqual([...new Set(all.flatMap((c) => c.tags))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    const fields = await post('/api/contacts/custom-fields', { accountId });
    expect(fields.statusCode).toBe(200);
    const names = fields.json().map((f: { name: string }) => f.name);
    expect(names).toEqual(expect.arrayContaining(['Ciudad', 'Plan', 'Fecha de nacimiento', 'Origen']));
    expect(names).not.toContain('Teléfono');
    expect(names).not.toContain('Email');
    expect((await get(`/api/contacts/${emptyAccountId}/tags`)).json()).toEqual([]);
  });

  it('lists the values of a field with counts, also under the other filters', async () => {
    const res = (await get(`/api/contacts/${accountId}/custom-fields/Plan/values`)).json();
    expect(res.field).toBe('Plan');
    const expected = new Map<string, number>();
    for (const c of all) if (c.custom_fields.Plan) expected.set(c.custom_fields.Plan, (expected.get(c.custom_fields.Plan) ?? 0) + 1);
    expect(Object.fromEntries(res.values.map((v: { value: string; count: number }) => [v.value, v.count]))).toEqual(Object.fromEntries(expected));
    const counts = res.values.map((v: { count: number }) => v.count);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));

    const [tag] = tagCounts();
    const cff = { Plan: { mode: 'specific', values: ['Pro'] }, Origen: { mode: 'exists' } };
    const filtered = (
      await get(`/api/contacts/${accountId}/custom-fields/Plan/values/filtered?${query({ tags: [tag], customFieldFilters: cff as never })}&excludeFieldName=Plan`)
    ).json();
    const under = reference({ tags: [tag], customFieldFilters: { Origen: { mode: 'exists' } } });
    const expectedUnder = new Map<string, number>();
    for (const c of under) if (c.custom_fields.Plan) expectedUnder.set(c.custom_fields.Plan, (expectedUnder.get(c.custom_fields.Plan) ?? 0) + 1);
    expect(Object.fromEntries(filtered.values.map((v: { value: string; count: number }) => [v.value, v.count]))).toEqual(Object.fromEntries(expectedUnder));
    const search = (await get(`/api/contacts/${accountId}/custom-fields/Plan/values?search=pro`)).json();
    expect(search.values.map((v: { value: string }) => v.value)).toEqual(['Pro']);
    expect((await get(`/api/contacts/${accountId}/custom-fields/Nada/values`)).json().values).toEqual([]);
  });

  it('gives every filter option in one call', async () => {
    const res = await get(`/api/contacts/${accountId}/filter-options`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.total_contacts).toBe(700);
    expect(body.tags).toEqual((await get(`/api/contacts/${accountId}/tags`)).json());
    const plan = body.customFields.find((f: { name: string }) => f.name === 'Plan');
    expect([...plan.values].sort()).toEqual(['Básico', 'Empresa', 'Pro']);
    expect(plan.total_values).toBe(3);
  });

  it('exports the filtered contacts as CSV with a BOM, neutralising formulas', async () => {
    const f = { tags: ['vip'] };
    const res = await post(`/api/contacts/${accountId}/export`, f);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="contactos-contactos-\d{4}-\d{2}-\d{2}\.csv"$/);
    expect(res.rawPayload.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    const rows = parseCsv(res.body.replace(/^\uFEFF/, ''));
    expect(rows[0].slice(0, 8)).toEqual(['ID Kommo', 'Nombre', 'Nombre de pila', 'Apellido', 'Teléfono', 'Teléfono original', 'Email', 'Etiquetas']);
    expect(rows[0]).toEqual(expect.arrayContaining(['Ciudad', 'Plan']));
    expect(rows.length - 1).toBe(reference(f).length);
    const byKommo = new Map(rows.slice(1).map((r) => [r[0], r]));
    const five = byKommo.get('5')!;
    expect(five[1]).toBe(`'=HYPERLINK("http://x")`);
    expect(five[rows[0].indexOf('Ciudad')]).toBe(`'+Córdoba, "centro"`);
    expect(byKommo.get('6')![1]).toBe('Ñandú Pérez');
    expect(byKommo.get('6')![6]).toBe("'@raro@example.com");
    for (const r of rows.slice(1)) if (r[4]) expect(r[4]).toMatch(/^'\+\d+$/); // E.164 starts with + and is neutralised too
    const everything = await post(`/api/contacts/${accountId}/export`, {});
    expect(parseCsv(everything.body.replace(/^\uFEFF/, '')).length - 1).toBe(700);
    const bad = await post(`/api/contacts/${accountId}/export`, { format: 'xlsx' });
    expect(bad.statusCode).toBe(400);
  });

  it('answers 400 for malformed filters, never 500', async () => {
    const bad = [
      'tags=%5B',
      'tags=%7B%22a%22%3A1%7D',
      'tags=%5B1%2C2%5D',
      'customFieldFilters=%7Bnope',
      `customFieldFilters=${encodeURIComponent(JSON.stringify({ Plan: { mode: 'parecido' } }))}`,
      `customFieldFilters=${encodeURIComponent(JSON.stringify({ Plan: { mode: 'specific', values: 'Pro' } }))}`,
      'customFieldFilters=%5B%5D',
      'tagOperator=XOR',
      'limit=0',
      'limit=abc',
      'offset=-1',
      `searchQuery=${'x'.repeat(201)}`,
    ];
    for (const q of bad) {
      for (const path of [`/api/contacts/${accountId}/filtered`, `/api/contacts/${accountId}/count`, `/api/contacts/recipient-count?account_id=${accountId}&x=1`, `/api/contacts/${accountId}/advanced-filtered`, `/api/contacts/${accountId}/custom-fields/Plan/values/filtered`]) {
        const isPaging = /^(limit|offset)/.test(q);
        if (isPaging && !/filtered$/.test(path)) continue;
        if (isPaging && path.includes('values')) continue;
        const url = `${path}${path.includes('?') ? '&' : '?'}${q}`;
        const res = await get(url);
        expect(res.statusCode, url).toBe(400);
        expect(typeof res.json().error, url).toBe('string');
      }
    }
    expect((await get(`/api/contacts/${accountId}/filtered?tags=%5B`)).json().error).toBe('tags: JSON inválido');
    expect((await get('/api/contacts/recipient-count')).statusCode).toBe(400);
    expect((await post(`/api/contacts/${accountId}/export`, { customFieldFilters: { Plan: { mode: 'x' } } })).statusCode).toBe(400);
    expect((await post(`/api/contacts/${accountId}/export`, { tags: 'vip' })).statusCode).toBe(400);
    expect((await post('/api/contacts/custom-fields', { accountId: 'uno' })).statusCode).toBe(400);
    expect((await get(`/api/contacts/abc/filtered`)).statusCode).toBe(400);
  });

  it("answers 404 for another user's account on every route", async () => {
    const calls: Array<[string, string, unknown?]> = [
      ['GET', `/api/contacts?account_id=${accountId}`],
      ['GET', `/api/contacts/${accountId}/filtered`],
      ['GET', `/api/contacts/${accountId}/advanced-filtered`],
      ['GET', `/api/contacts/${accountId}/count`],
      ['GET', `/api/contacts/recipient-count?account_id=${accountId}`],
      ['GET', `/api/contacts/${accountId}/tags`],
      ['POST', '/api/contacts/custom-fields', { accountId }],
      ['GET', `/api/contacts/${accountId}/custom-fields/Plan/values`],
      ['GET', `/api/contacts/${accountId}/custom-fields/Plan/values/filtered`],
      ['GET', `/api/contacts/${accountId}/filter-options`],
      ['POST', `/api/contacts/${accountId}/export`, {}],
    ];
    for (const [method, url, payload] of calls) {
      const res = await env.t.app.inject({ method: method as 'GET', url, headers: other, payload: payload as never });
      expect(res.statusCode, url).toBe(404);
      expect(res.json().error).toBe('Cuenta Kommo no encontrada');
    }
  });
});
