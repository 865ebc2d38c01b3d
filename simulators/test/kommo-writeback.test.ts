import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKommoSim, type KommoSim } from '../src/kommo/index';
import { call } from './helpers/graph';

/** The write-back's side of the Kommo simulator: notes, tags, leads, pipelines, in Kommo's shapes and under its rate. */

const TOKEN = 'kommo-token';

describe('Kommo simulator: notes, tags, leads, pipelines', () => {
  let sim: KommoSim;
  const api = (path: string, init: { method?: string; body?: unknown } = {}) => call(`${sim.url}/crm/api/v4${path}`, { token: TOKEN, ...init });

  beforeAll(async () => {
    sim = await startKommoSim({ rps: 10_000, accounts: [{ subdomain: 'crm', token: TOKEN, contacts: 40 }] });
  });
  afterAll(() => sim.close());

  it('adds common notes in a batch and echoes request_id', async () => {
    const r = await api('/contacts/notes', {
      body: [
        { entity_id: 1, note_type: 'common', params: { text: 'Campaña A: entregado' }, request_id: 'r1' },
        { entity_id: 2, note_type: 'common', params: { text: 'Campaña A: leído' } },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/hal\+json/);
    expect(r.json._embedded.notes).toEqual([
      { id: expect.any(Number), entity_id: 1, request_id: 'r1', _links: { self: { href: expect.stringContaining('/api/v4/contacts/1/notes/') } } },
      { id: expect.any(Number), entity_id: 2, request_id: '1', _links: expect.any(Object) },
    ]);
    expect(sim.notes('crm', 1).map((n) => n.text)).toEqual(['Campaña A: entregado']);
  });

  it('lists notes by contact, type and time, in Kommo’s note shape; 204 when none', async () => {
    const since = Math.floor(Date.now() / 1000) - 60;
    const r = await api(`/contacts/notes?filter[entity_id][]=1&filter[entity_id][]=2&filter[note_type]=common&filter[updated_at][from]=${since}`);
    expect(r.status).toBe(200);
    expect(r.json._embedded.notes).toHaveLength(2);
    expect(r.json._embedded.notes[0]).toMatchObject({
      entity_id: 1,
      note_type: 'common',
      params: { text: 'Campaña A: entregado' },
      created_at: expect.any(Number),
      updated_at: expect.any(Number),
      account_id: expect.any(Number),
      responsible_user_id: expect.any(Number),
    });
    const one = await api('/contacts/2/notes');
    expect(one.json._embedded.notes.map((n: { params: { text: string } }) => n.params.text)).toEqual(['Campaña A: leído']);
    expect((await api('/contacts/notes?filter[entity_id][]=3')).status).toBe(204);
    expect((await api(`/contacts/notes?filter[entity_id][]=1&filter[updated_at][from]=${since + 3600}`)).status).toBe(204);
  });

  it('refuses a batch with an unknown contact or an empty text as a whole, naming each entry', async () => {
    const r = await api('/contacts/notes', {
      body: [
        { entity_id: 5, note_type: 'common', params: { text: 'ok' }, request_id: 'a' },
        { entity_id: 99_999, note_type: 'common', params: { text: 'x' }, request_id: 'b' },
        { entity_id: 6, note_type: 'common', params: { text: ' ' }, request_id: 'c' },
      ],
    });
    expect(r.status).toBe(400);
    expect(r.json['validation-errors']).toEqual([
      { request_id: 'b', errors: [{ code: 'NotFound', path: 'entity_id', detail: 'Entity not found' }] },
      { request_id: 'c', errors: [{ code: 'NotBlank', path: 'params.text', detail: expect.any(String) }] },
    ]);
    expect(sim.notes('crm', 5)).toEqual([]);
  });

  it('refuses more than 250 entities in one request', async () => {
    const body = Array.from({ length: 251 }, () => ({ entity_id: 1, note_type: 'common', params: { text: 'x' } }));
    expect((await api('/contacts/notes', { body })).status).toBe(400);
    expect((await api('/contacts', { method: 'PATCH', body: Array.from({ length: 251 }, () => ({ id: 1 })) })).status).toBe(400);
  });

  it('PATCH /contacts: tags_to_add adds and keeps the others; _embedded.tags replaces; new tags join the tag list', async () => {
    const before = sim.tagsOf('crm', 7);
    const r = await api('/contacts', { method: 'PATCH', body: [{ id: 7, tags_to_add: [{ name: 'Respondió WhatsApp' }] }] });
    expect(r.status).toBe(200);
    expect(r.json._embedded.contacts).toEqual([{ id: 7, name: expect.any(String), updated_at: expect.any(Number), request_id: '0', _links: expect.any(Object) }]);
    expect(sim.tagsOf('crm', 7)).toEqual([...before.filter((t) => t !== 'Respondió WhatsApp'), 'Respondió WhatsApp']);
    await api('/contacts', { method: 'PATCH', body: [{ id: 7, tags_to_add: [{ name: 'Respondió WhatsApp' }] }] });
    expect(sim.tagsOf('crm', 7).filter((t) => t === 'Respondió WhatsApp')).toHaveLength(1);
    await api('/contacts', { method: 'PATCH', body: [{ id: 8, _embedded: { tags: [{ name: 'Solo esta' }] } }] });
    expect(sim.tagsOf('crm', 8)).toEqual(['Solo esta']);
    const tags = await api('/contacts/tags?filter[name]=Respondió WhatsApp');
    expect(tags.json._embedded.tags).toEqual([{ id: expect.any(Number), name: 'Respondió WhatsApp', color: expect.anything() }]);
    const bad = await api('/contacts', { method: 'PATCH', body: [{ id: 7, tags_to_add: [{ name: 'x' }] }, { id: 12_345, tags_to_add: [{ name: 'x' }] }] });
    expect(bad.status).toBe(400);
    expect(bad.json['validation-errors']).toEqual([{ request_id: '1', errors: [expect.objectContaining({ path: 'id' })] }]);
  });

  it('embeds a contact’s leads with=leads and lists leads by id with status and pipeline', async () => {
    const r = await api('/contacts?filter[id][]=5&filter[id][]=4&filter[id][]=3&with=leads');
    const byId = Object.fromEntries(r.json._embedded.contacts.map((c: { id: number; _embedded: { leads: Array<{ id: number }> } }) => [c.id, c._embedded.leads.map((l) => l.id)]));
    expect(byId).toEqual({ 3: [31], 4: [], 5: [51, 52] });
    expect((await api('/contacts/5')).json._embedded.leads).toBeUndefined();
    const leads = await api('/leads?filter[id][]=51&filter[id][]=52');
    expect(leads.json._embedded.leads.map((l: { id: number; status_id: number; closed_at: number | null }) => [l.id, l.status_id === 142, l.closed_at === null])).toEqual([
      [51, false, true],
      [52, true, false],
    ]);
    expect(leads.json._embedded.leads[0]).toMatchObject({ pipeline_id: expect.any(Number), price: 0, updated_at: expect.any(Number), account_id: expect.any(Number) });
  });

  it('lists pipelines with their stages, and moves a lead only to a stage of the pipeline', async () => {
    const r = await api('/leads/pipelines');
    const [main, after] = r.json._embedded.pipelines;
    expect(main).toMatchObject({ name: 'Embudo de ventas', is_main: true, is_archive: false });
    expect(main._embedded.statuses.map((s: { id: number; name: string; type: number }) => s.name)).toEqual([
      'Leads entrantes', 'Contacto inicial', 'Negociación', 'Respondió campaña', 'Cotización enviada', 'Logrado con éxito', 'Venta perdida',
    ]);
    expect(main._embedded.statuses.at(-1)).toMatchObject({ id: 143, pipeline_id: main.id, type: 0 });
    const target = main._embedded.statuses[3].id;
    const wrong = await api('/leads', { method: 'PATCH', body: [{ id: 31, pipeline_id: after.id, status_id: target }] });
    expect(wrong.status).toBe(400);
    expect(wrong.json['validation-errors'][0].errors[0]).toMatchObject({ path: 'status_id', detail: 'Status not found in pipeline' });
    const ok = await api('/leads', { method: 'PATCH', body: [{ id: 31, pipeline_id: main.id, status_id: target }] });
    expect(ok.status).toBe(200);
    expect(ok.json._embedded.leads).toEqual([{ id: 31, updated_at: expect.any(Number), request_id: '0', _links: expect.any(Object) }]);
    expect(sim.leadsOf('crm', 3)[0]).toMatchObject({ statusId: target, pipelineId: main.id, closedAt: null });
  });

  it('lostAnswer: writes the notes, then answers 500', async () => {
    sim.injectFault({ kind: 'lostAnswer', subdomain: 'crm' });
    const r = await api('/contacts/notes', { body: [{ entity_id: 9, note_type: 'common', params: { text: 'perdida' } }] });
    expect(r.status).toBe(500);
    expect(sim.notes('crm', 9).map((n) => n.text)).toEqual(['perdida']);
    // A GET is never hit by it.
    sim.injectFault({ kind: 'lostAnswer', subdomain: 'crm' });
    expect((await api('/leads/pipelines')).status).toBe(200);
    expect((await api('/contacts/notes', { body: [{ entity_id: 9, note_type: 'common', params: { text: 'segunda' } }] })).status).toBe(500);
  });
});

describe('Kommo simulator: the write routes share the account’s rate limit', () => {
  let sim: KommoSim;
  beforeAll(async () => {
    sim = await startKommoSim({ accounts: [{ subdomain: 'lim', token: TOKEN, contacts: 20 }], rps: 3, blockAfter429s: 2, blockSeconds: 1, retryAfterSeconds: 2 });
  });
  afterAll(() => sim.close());

  it('answers 429 above the rate on notes, tags and leads, then 403 for everything', async () => {
    const u = (p: string) => `${sim.url}/lim/api/v4${p}`;
    const statuses: number[] = [];
    statuses.push((await call(u('/contacts/notes'), { token: TOKEN, body: [{ entity_id: 1, note_type: 'common', params: { text: 'a' } }] })).status);
    statuses.push((await call(u('/contacts'), { token: TOKEN, method: 'PATCH', body: [{ id: 1, tags_to_add: [{ name: 'x' }] }] })).status);
    statuses.push((await call(u('/leads/pipelines'), { token: TOKEN })).status);
    const tooMany = await call(u('/leads?filter[id][]=11'), { token: TOKEN });
    statuses.push(tooMany.status);
    statuses.push((await call(u('/contacts/notes'), { token: TOKEN, body: [{ entity_id: 1, note_type: 'common', params: { text: 'b' } }] })).status);
    statuses.push((await call(u('/leads'), { token: TOKEN, method: 'PATCH', body: [{ id: 11, status_id: 142 }] })).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429, 403]);
    expect(tooMany.json).toMatchObject({ status: 429, retry_after: 2 });
    expect(sim.notes('lim', 1).map((n) => n.text)).toEqual(['a']);
    expect(sim.stats()).toMatchObject({ count429: 2, count403: 1 });
  });
});
