import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKommoSim, type KommoSim } from '../src/kommo/index';
import { call } from './helpers/graph';

const TOKEN = 'kommo-token';

describe('Kommo simulator: reading', () => {
  let sim: KommoSim;
  const api = (sub: string, path: string, token = TOKEN) => call(`${sim.url}/${sub}/api/v4${path}`, { token });

  beforeAll(async () => {
    sim = await startKommoSim({
      rps: 10_000,
      accounts: [
        { subdomain: 'demo', token: TOKEN, contacts: 120 },
        { subdomain: 'exact', token: TOKEN, contacts: 100 },
        { subdomain: 'big', token: TOKEN, contacts: 1_000_000 },
        { subdomain: 'empty', token: TOKEN, contacts: 0 },
      ],
    });
  });
  afterAll(() => sim.close());

  it('gives the base URL template the product needs', () => {
    expect(sim.baseUrlTemplate).toBe(`${sim.url}/{subdomain}`);
    expect(sim.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('answers GET /api/v4/account', async () => {
    const r = await api('demo', '/account');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/hal\+json/);
    expect(r.json).toMatchObject({ subdomain: 'demo', country: expect.any(String), currency: expect.any(String) });
    expect(typeof r.json.id).toBe('number');
    expect(typeof r.json.current_user_id).toBe('number');
  });

  it('pages contacts with _links and 204 past the end', async () => {
    const p1 = await api('demo', '/contacts?limit=50&page=1');
    expect(p1.status).toBe(200);
    expect(p1.json._page).toBe(1);
    expect(p1.json._embedded.contacts).toHaveLength(50);
    expect(p1.json._links.next.href).toBe(`${sim.url}/demo/api/v4/contacts?limit=50&page=2`);
    expect(p1.json._links.prev).toBeUndefined();
    const p3 = await api('demo', '/contacts?limit=50&page=3');
    expect(p3.json._embedded.contacts.map((c: any) => c.id)).toEqual(Array.from({ length: 20 }, (_, i) => 101 + i));
    expect(p3.json._links.next).toBeUndefined();
    expect(p3.json._links.prev.href).toContain('page=2');
    const p4 = await api('demo', '/contacts?limit=50&page=4');
    expect(p4.status).toBe(204);
    expect(p4.text).toBe('');
  });

  it('keeps next on a full final page, then answers 204', async () => {
    const p2 = await api('exact', '/contacts?limit=50&page=2');
    expect(p2.json._embedded.contacts).toHaveLength(50);
    expect(p2.json._links.next).toBeDefined();
    expect((await api('exact', '/contacts?limit=50&page=3')).status).toBe(204);
    expect((await api('empty', '/contacts')).status).toBe(204);
  });

  it('defaults to 50 per page and caps limit at 250', async () => {
    expect((await api('big', '/contacts')).json._embedded.contacts).toHaveLength(50);
    const r = await api('big', '/contacts?limit=1000');
    expect(r.json._embedded.contacts).toHaveLength(250);
    expect(r.json._links.next.href).toContain('limit=250');
  });

  it('serves contacts in Kommo shape', async () => {
    const r = await api('big', '/contacts?limit=250');
    const contacts = r.json._embedded.contacts;
    const fields = sim.fields('big');
    const c = contacts.find((x: any) => x.custom_fields_values?.some((f: any) => f.field_code === 'PHONE'));
    expect(c).toMatchObject({
      id: expect.any(Number), name: expect.any(String), first_name: expect.any(String), last_name: expect.any(String),
      created_at: expect.any(Number), updated_at: expect.any(Number), responsible_user_id: expect.any(Number), account_id: expect.any(Number),
      _embedded: { tags: expect.any(Array) },
    });
    const phone = c.custom_fields_values.find((f: any) => f.field_code === 'PHONE');
    expect(phone).toMatchObject({ field_id: fields.phoneFieldId, field_type: 'multitext' });
    expect(phone.values[0]).toMatchObject({ value: expect.any(String), enum_id: expect.any(Number), enum_code: expect.stringMatching(/^(MOB|WORK|HOME)$/) });
    const all = contacts.flatMap((x: any) => x.custom_fields_values ?? []);
    const plan = all.find((f: any) => f.field_name === 'Plan');
    expect(plan).toMatchObject({ field_type: 'select', values: [{ value: expect.any(String), enum_id: expect.any(Number) }] });
    const birth = all.find((f: any) => f.field_name === 'Fecha de nacimiento');
    expect(birth.field_type).toBe('date');
    expect(typeof birth.values[0].value).toBe('number');
    expect(all.some((f: any) => f.field_name === 'Ciudad')).toBe(true);
    expect(all.some((f: any) => f.field_name === 'Origen')).toBe(true);
    expect(contacts.some((x: any) => x.custom_fields_values === null)).toBe(true);
    expect(contacts.some((x: any) => x.custom_fields_values?.some((f: any) => f.field_code === 'PHONE' && f.values.length === 2))).toBe(true);
    const tagged = contacts.find((x: any) => x._embedded.tags.length > 0);
    expect(tagged._embedded.tags[0]).toEqual({ id: expect.any(Number), name: expect.any(String), color: expect.toBeOneOf([null, expect.any(String)]) });
  });

  it('serves a deep page of a million contacts in a few ms', async () => {
    await api('big', '/contacts?limit=250&page=3000'); // warm up
    const start = performance.now();
    const r = await api('big', '/contacts?limit=250&page=3999');
    expect(performance.now() - start).toBeLessThan(250);
    expect(r.json._embedded.contacts[0].id).toBe(3998 * 250 + 1);
    expect((await api('big', '/contacts?limit=250&page=4001')).status).toBe(204);
  });

  it('filters by query over name, phone and email', async () => {
    const first = (await api('demo', '/contacts?limit=250')).json._embedded.contacts;
    const target = first[6];
    const r = await api('demo', `/contacts?query=${encodeURIComponent(target.name)}`);
    expect(r.json._embedded.contacts.map((c: any) => c.id)).toContain(target.id);
    const withPhone = first.find((c: any) => c.custom_fields_values?.some((f: any) => f.field_code === 'PHONE'));
    const phone = withPhone.custom_fields_values.find((f: any) => f.field_code === 'PHONE').values[0].value as string;
    const digits = phone.replace(/\D/g, '').slice(-7);
    const byPhone = await api('demo', `/contacts?query=${digits}`);
    expect(byPhone.json._embedded.contacts.map((c: any) => c.id)).toContain(withPhone.id);
    expect((await api('demo', '/contacts?query=zzzz-nadie-zzzz')).status).toBe(204);
  });

  it('pages custom fields and tags, 204 past the end', async () => {
    const f1 = await api('demo', '/contacts/custom_fields?limit=3');
    expect(f1.json._total_items).toBe(7);
    expect(f1.json._page_count).toBe(3);
    expect(f1.json._embedded.custom_fields[0]).toMatchObject({ name: 'Teléfono', code: 'PHONE', type: 'multitext', is_predefined: true, entity_type: 'contacts' });
    const f3 = await api('demo', '/contacts/custom_fields?limit=3&page=3');
    expect(f3.json._embedded.custom_fields.map((f: any) => f.name)).toEqual(['Origen']);
    expect((await api('demo', '/contacts/custom_fields?limit=3&page=4')).status).toBe(204);
    const names = (await api('demo', '/contacts/custom_fields')).json._embedded.custom_fields.map((f: any) => f.name);
    expect(names).toEqual(expect.arrayContaining(['Ciudad', 'Plan', 'Fecha de nacimiento', 'Origen']));

    const t1 = await api('demo', '/contacts/tags?limit=10');
    expect(t1.json._embedded.tags).toHaveLength(10);
    expect(t1.json._links.next).toBeDefined();
    const allTags = (await api('demo', '/contacts/tags?limit=250')).json._embedded.tags;
    expect(allTags.length).toBeGreaterThanOrEqual(20);
    expect(allTags.length).toBeLessThanOrEqual(50);
    expect((await api('demo', '/contacts/tags?limit=250&page=2')).status).toBe(204);
  });

  it('answers 401 with a problem+json body for a bad or missing token', async () => {
    for (const r of [await api('demo', '/contacts', 'wrong'), await call(`${sim.url}/demo/api/v4/contacts`)]) {
      expect(r.status).toBe(401);
      expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(r.json).toEqual({ title: 'Unauthorized', type: 'https://httpstatus.es/401', status: 401, detail: 'Invalid user name or password' });
    }
  });
});

describe('Kommo simulator: changes and incremental sync', () => {
  let sim: KommoSim;
  const api = (path: string) => call(`${sim.url}/acme/api/v4${path}`, { token: TOKEN });
  const allPages = async (query: string) => {
    const ids: number[] = [];
    for (let page = 1; ; page++) {
      const r = await api(`/contacts?limit=37&page=${page}${query}`);
      if (r.status === 204) return ids;
      ids.push(...r.json._embedded.contacts.map((c: any) => c.id));
    }
  };

  beforeAll(async () => {
    sim = await startKommoSim({ rps: 10_000, accounts: [{ subdomain: 'acme', token: TOKEN, contacts: 300, seed: 5 }] });
  });
  afterAll(() => sim.close());

  it('updates, deletes and adds contacts, and orders and filters them like a stored list', async () => {
    const before = [...(await api('/contacts?limit=250')).json._embedded.contacts, ...(await api('/contacts?limit=250&page=2')).json._embedded.contacts];
    expect(before).toHaveLength(300);
    const createdAt = Math.max(...before.map((c: any) => c.updated_at));
    sim.updateContact('acme', 10, { name: 'Zoe Actualizada', phone: '+5491155550000', tags: ['etiqueta_nueva'], custom: { Ciudad: 'Rosario', Plan: null } });
    sim.deleteContact('acme', 11);
    sim.updateContact('acme', 250, { email: 'nuevo@correo.com' });
    sim.addContacts('acme', 5);
    sim.updateContact('acme', 3, { first_name: 'Tres' });
    sim.deleteContact('acme', 302);

    const byId = await allPages('');
    const expectedIds = Array.from({ length: 305 }, (_, i) => i + 1).filter((id) => id !== 11 && id !== 302);
    expect(byId).toEqual(expectedIds);
    expect(await allPages('&order[id]=desc')).toEqual([...expectedIds].reverse());

    // Reference order computed from what the API itself returns.
    const everything: any[] = [];
    for (let page = 1; ; page++) {
      const r = await api(`/contacts?limit=250&page=${page}`);
      if (r.status === 204) break;
      everything.push(...r.json._embedded.contacts);
    }
    const ts = new Map(everything.map((c) => [c.id, c.updated_at as number]));
    const byUpdated = [...expectedIds].sort((a, b) => (ts.get(a) as number) - (ts.get(b) as number) || a - b);
    expect(await allPages('&order[updated_at]=asc')).toEqual(byUpdated);
    expect(await allPages('&order[updated_at]=desc')).toEqual([...byUpdated].reverse());

    const changedSince = await allPages(`&filter[updated_at][from]=${createdAt + 1}&order[updated_at]=asc`);
    expect(new Set(changedSince)).toEqual(new Set([10, 250, 3, 301, 303, 304, 305]));
    const middle = [...ts.entries()].filter(([, t]) => t <= createdAt).map(([, t]) => t).sort((a, b) => a - b);
    const to = middle[100];
    const upTo = await allPages(`&filter[updated_at][to]=${to}`);
    expect(upTo).toEqual(expectedIds.filter((id) => (ts.get(id) as number) <= to));

    const ten = everything.find((c) => c.id === 10);
    expect(ten.name).toBe('Zoe Actualizada');
    expect(ten.updated_at).toBeGreaterThan(createdAt);
    const cf = Object.fromEntries(ten.custom_fields_values.map((f: any) => [f.field_name, f.values]));
    expect(cf['Teléfono']).toEqual([{ value: '+5491155550000', enum_id: expect.any(Number), enum_code: 'MOB' }]);
    expect(cf.Ciudad).toEqual([{ value: 'Rosario' }]);
    expect(cf.Plan).toBeUndefined();
    expect(ten._embedded.tags.map((t: any) => t.name)).toEqual(['etiqueta_nueva']);
    expect((await api('/contacts/tags?query=etiqueta_nueva')).json._embedded.tags).toHaveLength(1);
    expect((await api('/contacts/11')).status).toBe(204);
    expect((await api('/contacts/10')).json.name).toBe('Zoe Actualizada');
    expect((await api('/contacts?filter[id][]=10&filter[id][]=11&filter[id][]=12')).json._embedded.contacts.map((c: any) => c.id)).toEqual([10, 12]);
  });
});

describe('Kommo simulator: limits and faults', () => {
  let sim: KommoSim;
  const api = (path = '/contacts?limit=5') => call(`${sim.url}/lim/api/v4${path}`, { token: TOKEN });

  beforeAll(async () => {
    sim = await startKommoSim({ accounts: [{ subdomain: 'lim', token: TOKEN, contacts: 50 }], rps: 3, blockAfter429s: 2, blockSeconds: 1, retryAfterSeconds: 2 });
  });
  afterAll(() => sim.close());

  it('answers 429 with retry_after above the rate, then 403 for every request when the client continues', async () => {
    sim.reset();
    const statuses: number[] = [];
    let tooMany: any;
    let blocked: any;
    for (let i = 0; i < 7; i++) {
      const r = await api();
      statuses.push(r.status);
      if (r.status === 429) tooMany = r;
      if (r.status === 403) blocked = r;
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429, 403, 403]);
    expect(tooMany.headers.get('content-type')).toMatch(/problem\+json/);
    expect(tooMany.json).toMatchObject({ title: 'Too Many Requests', status: 429, retry_after: 2 });
    expect(() => JSON.parse(blocked.text)).toThrow(); // Kommo's block page is not JSON
    expect(sim.stats()).toMatchObject({ requests: 7, count429: 2, count403: 2, by_status: { '200': 3, '429': 2, '403': 2 }, perSecondMax: 7 });
    await new Promise((r) => setTimeout(r, 1100));
    expect((await api()).status).toBe(200);
  });

  it('never lets more than rps requests through in any second for a paced client', async () => {
    sim.reset();
    sim.configure({ rps: 5 });
    const start = Date.now();
    while (Date.now() - start < 1500) {
      expect((await api()).status).toBe(200);
      await new Promise((r) => setTimeout(r, 210));
    }
    expect(sim.stats().count429).toBe(0);
    expect(sim.stats().perSecondMax).toBeLessThanOrEqual(5);
    sim.configure({ rps: 3 });
  });

  it('injects 5xx, unauthorized and failPageOnce', async () => {
    sim.reset();
    sim.configure({ rps: 1000 });
    sim.injectFault({ kind: '5xx', count: 2 });
    const a = await api();
    expect(a.status).toBe(500);
    expect(a.json).toMatchObject({ status: 500, trace_id: expect.any(String) });
    expect((await api()).status).toBe(500);
    expect((await api()).status).toBe(200);
    sim.injectFault({ kind: '5xx', status: 502, subdomain: 'other' });
    expect((await api()).status).toBe(200);
    sim.injectFault({ kind: 'unauthorized' });
    expect((await api()).status).toBe(401);
    sim.injectFault({ kind: 'failPageOnce', page: 2 });
    expect((await api('/contacts?limit=5&page=1')).status).toBe(200);
    expect((await api('/contacts?limit=5&page=2')).status).toBe(500);
    expect((await api('/contacts?limit=5&page=2')).status).toBe(200);
    sim.configure({ rps: 3 });
  });

  it('hangs on a timeout fault until the client gives up, without keeping close() waiting', async () => {
    sim.reset();
    sim.injectFault({ kind: 'timeout' });
    const started = Date.now();
    await expect(fetch(`${sim.url}/lim/api/v4/contacts`, { headers: { authorization: `Bearer ${TOKEN}` }, signal: AbortSignal.timeout(300) })).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(2000);
    const hanging = await startKommoSim({ accounts: [{ subdomain: 'lim', token: TOKEN, contacts: 5 }] });
    hanging.injectFault({ kind: 'timeout' });
    const pending = fetch(`${hanging.url}/lim/api/v4/contacts`, { headers: { authorization: `Bearer ${TOKEN}` } }).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 100));
    const closeStarted = Date.now();
    await hanging.close();
    expect(Date.now() - closeStarted).toBeLessThan(2000);
    expect(await pending).toBeInstanceOf(Error);
  });

  it('is driven over /__control too', async () => {
    const c = (path: string, body?: unknown) => call(`${sim.url}/__control${path}`, { body });
    expect((await c('/accounts', { subdomain: 'remote', token: 'r', contacts: 10 })).json).toMatchObject({ ok: true, contacts: 10 });
    expect((await c('/contacts/add', { subdomain: 'remote', n: 2 })).json).toEqual({ ok: true });
    expect((await c('/contacts/update', { subdomain: 'remote', id: 1, patch: { name: 'Remota' } })).json).toEqual({ ok: true });
    expect((await c('/contacts/delete', { subdomain: 'remote', id: 2 })).json).toEqual({ ok: true });
    const list = await call(`${sim.url}/remote/api/v4/contacts?limit=250`, { token: 'r' });
    expect(list.json._embedded.contacts).toHaveLength(11);
    expect(list.json._embedded.contacts[0].name).toBe('Remota');
    expect((await c('/fault', { kind: '5xx' })).json).toEqual({ ok: true });
    expect((await call(`${sim.url}/remote/api/v4/account`, { token: 'r' })).status).toBe(500);
    expect((await c('/configure', { rps: 50 })).json).toEqual({ ok: true });
    expect((await c('/stats')).json).toMatchObject({ requests: expect.any(Number), by_status: { '500': 1 } });
    expect((await c('/fields?subdomain=remote')).json).toEqual(sim.fields('remote'));
    expect((await c('/reset', {})).json).toEqual({ ok: true });
    expect((await c('/stats')).json.requests).toBe(0);
    const bad = await c('/fault', { kind: 'nope' });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatch(/unknown fault kind/);
  });
});
