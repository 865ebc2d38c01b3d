import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKommoSim, type KommoSim } from '../src/kommo/index';
import { call } from './helpers/graph';

/** Leads in pipelines (created, read with their contacts), the event feed and "contacts changed since". */

const TOKEN = 'kommo-token';

describe('Kommo simulator: leads and their contacts', () => {
  let sim: KommoSim;
  let stages: number[];
  let mainId: number;
  let afterId: number;
  const api = (path: string, init: { method?: string; body?: unknown } = {}) => call(`${sim.url}/crm/api/v4${path}`, { token: TOKEN, ...init });

  beforeAll(async () => {
    sim = await startKommoSim({ rps: 10_000, accounts: [{ subdomain: 'crm', token: TOKEN, contacts: 40 }] });
    const [main, after] = sim.pipelines('crm');
    stages = main.statuses.map((s) => s.id);
    mainId = main.id;
    afterId = after.id;
  });
  afterAll(() => sim.close());

  it('creates a lead of an existing contact in the main pipeline by default', async () => {
    const lead = sim.createLead('crm', { contactId: 3, statusId: stages[2], name: 'Renovación', price: 2500 });
    expect(lead).toMatchObject({ contactId: 3, pipelineId: mainId, statusId: stages[2], name: 'Renovación', price: 2500, closedAt: null });
    expect(lead.updatedAt).toBe(lead.createdAt);
    expect(sim.leadsOf('crm', 3).map((l) => l.id)).toEqual([31, lead.id]);
    const withLeads = await api('/contacts/3?with=leads');
    expect(withLeads.json._embedded.leads.map((l: { id: number }) => l.id)).toEqual([31, lead.id]);
  });

  it('reads a lead by id and by filter[id] with=contacts, embedding the main contact like Kommo', async () => {
    const lead = sim.createLead('crm', { contactId: 5, pipelineId: afterId, statusId: sim.pipelines('crm')[1].statuses[1].id, price: 70 });
    const one = await api(`/leads/${lead.id}?with=contacts`);
    expect(one.status).toBe(200);
    expect(one.json).toMatchObject({ id: lead.id, pipeline_id: afterId, price: 70, custom_fields_values: null, updated_at: lead.updatedAt, created_at: lead.createdAt });
    expect(one.json._embedded.contacts).toEqual([{ id: 5, is_main: true, _links: { self: { href: `${sim.url}/crm/api/v4/contacts/5` } } }]);
    expect((await api(`/leads/${lead.id}`)).json._embedded.contacts).toBeUndefined();

    const list = await api(`/leads?filter[id][]=51&filter[id][]=${lead.id}&with=contacts`);
    expect(list.json._embedded.leads.map((l: { id: number; _embedded: { contacts: Array<{ id: number }> } }) => [l.id, l._embedded.contacts.map((c) => c.id)])).toEqual([
      [51, [5]],
      [lead.id, [5]],
    ]);
  });

  it('answers 204 for leads that do not exist, on the list and on the single read', async () => {
    expect((await api('/leads?filter[id][]=41')).status).toBe(204); // contact 4 has no lead
    const missing = await api('/leads/41?with=contacts');
    expect(missing.status).toBe(204);
    expect(missing.text).toBe('');
    expect((await api('/leads/1999999999')).status).toBe(204);
    expect((await api('/leads/abc')).status).toBe(404);
  });

  it('creates a lead with a new contact, which joins the contact list with its phone', async () => {
    const lead = sim.createLead('crm', { newContact: { name: 'Marta Ruiz', phone: '+57 310 555 0101' }, statusId: stages[0] });
    expect(lead.contactId).toBe(41);
    const contact = await api('/contacts/41?with=leads');
    expect(contact.json).toMatchObject({ id: 41, name: 'Marta Ruiz', first_name: 'Marta Ruiz', last_name: '' });
    expect(contact.json.custom_fields_values).toEqual([expect.objectContaining({ field_code: 'PHONE', values: [expect.objectContaining({ value: '+57 310 555 0101' })] })]);
    expect(contact.json._embedded.leads.map((l: { id: number }) => l.id)).toEqual([lead.id]);
    const page = await api('/contacts?limit=250');
    expect(page.json._embedded.contacts.at(-1).id).toBe(41);
  });

  it('refuses impossible leads and moves', () => {
    expect(() => sim.createLead('crm', { statusId: stages[0] })).toThrow(/contactId or newContact/);
    expect(() => sim.createLead('crm', { contactId: 999, statusId: stages[0] })).toThrow(/does not exist/);
    expect(() => sim.createLead('crm', { contactId: 1, pipelineId: afterId, statusId: stages[2] })).toThrow(/Status not found/);
    expect(() => sim.moveLead('crm', 41, stages[2])).toThrow(/does not exist/);
    // All or none: the valid move of the batch is not applied either.
    expect(() => sim.moveLeads('crm', [{ id: 11, statusId: stages[3] }, { id: 21, statusId: 1 }])).toThrow(/Status not found/);
    expect(sim.leadsOf('crm', 1)[0].statusId).toBe(stages[1]);
  });

  it('moves a lead, closing it in 142/143, across pipelines too', () => {
    const won = sim.moveLead('crm', 11, 142);
    expect(won).toMatchObject({ statusId: 142, pipelineId: mainId, closedAt: won.updatedAt });
    const moved = sim.moveLead('crm', 11, sim.pipelines('crm')[1].statuses[2].id, afterId);
    expect(moved).toMatchObject({ pipelineId: afterId, closedAt: null });
  });
});

describe('Kommo simulator: events API', () => {
  let sim: KommoSim;
  let stages: number[];
  const api = (path: string) => call(`${sim.url}/ev/api/v4${path}`, { token: TOKEN });

  beforeAll(async () => {
    sim = await startKommoSim({ rps: 10_000, accounts: [{ subdomain: 'ev', token: TOKEN, contacts: 300 }] });
    stages = sim.pipelines('ev')[0].statuses.map((s) => s.id);
  });
  afterAll(() => sim.close());

  it('answers 204 while nothing happened', async () => {
    expect((await api('/events')).status).toBe(204);
  });

  it('logs stage moves with lead_status changes before and after, newest first, in Kommo’s HAL shape', async () => {
    sim.moveLead('ev', 11, stages[2]);
    sim.moveLead('ev', 21, stages[3]);
    sim.moveLead('ev', 11, 142);
    const r = await api('/events?filter[type]=lead_status_changed');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/hal\+json/);
    const events = r.json._embedded.events;
    expect(events.map((e: { entity_id: number }) => e.entity_id)).toEqual([11, 21, 11]);
    expect(events[0]).toEqual({
      id: expect.stringMatching(/^[0-9a-z]{26}$/),
      type: 'lead_status_changed',
      entity_id: 11,
      entity_type: 'lead',
      created_by: expect.any(Number),
      created_at: expect.any(Number),
      value_after: [{ lead_status: { id: 142, pipeline_id: sim.pipelines('ev')[0].id } }],
      value_before: [{ lead_status: { id: stages[2], pipeline_id: sim.pipelines('ev')[0].id } }],
      account_id: expect.any(Number),
      _links: { self: { href: `${sim.url}/ev/api/v4/events/${events[0].id}` } },
      _embedded: { entity: { id: 11, _links: { self: { href: `${sim.url}/ev/api/v4/leads/11` } } } },
    });
    expect(r.json._page).toBe(1);
    expect(r.json._links.self.href).toContain('/ev/api/v4/events?');
    const byId = await api(`/events/${events[1].id}`);
    expect(byId.json).toMatchObject({ id: events[1].id, entity_id: 21 });
  });

  it('filters by type (comma list or array), entity, entity id and creation time', async () => {
    sim.createLead('ev', { newContact: { name: 'Nuevo', phone: '+34 612 34 56 78' }, statusId: stages[0] });
    sim.deleteContact('ev', 7);
    sim.restoreContact('ev', 7);
    const types = async (q: string) => (await api(`/events?${q}`)).json?._embedded.events.map((e: { type: string }) => e.type) ?? [];
    expect(await types('filter[type]=lead_added,contact_added')).toEqual(['lead_added', 'contact_added']);
    expect(await types('filter[type][]=contact_deleted&filter[type][]=contact_restored')).toEqual(['contact_restored', 'contact_deleted']);
    expect(await types('filter[type][0]=contact_deleted')).toEqual(['contact_deleted']);
    expect(await types('filter[entity]=contact')).toEqual(['contact_restored', 'contact_deleted', 'contact_added']);
    expect(await types('filter[entity][]=lead&filter[entity_id][]=21')).toEqual(['lead_status_changed']);
    const now = Math.floor(Date.now() / 1000);
    expect(await types(`filter[created_at][from]=${now + 60}`)).toEqual([]);
    expect((await api(`/events?filter[created_at][to]=${now - 3600}`)).status).toBe(204);
    expect((await types(`filter[created_at][from]=${now - 60}&filter[created_at][to]=${now + 60}`)).length).toBe(7);
    expect((await types(`filter[created_at]=${now - 60}`)).length).toBe(7);
  });

  it('pages with limit (at most 100) and page, with next while a page is full, then 204', async () => {
    // Lead 21 is already in stages[3]: that move changes nothing and logs nothing.
    const moves = Array.from({ length: 150 }, (_, i) => i + 1).filter((n) => n % 4 !== 0).slice(0, 105).map((n) => ({ id: n * 10 + 1, statusId: stages[3] }));
    sim.moveLeads('ev', moves);
    const total = sim.events('ev').filter((e) => e.type === 'lead_status_changed').length;
    expect(total).toBe(3 + moves.length - 1);
    const p1 = await api('/events?filter[type]=lead_status_changed&limit=250');
    expect(p1.json._embedded.events).toHaveLength(100);
    expect(p1.json._links.next.href).toContain('page=2');
    expect(p1.json._links.next.href).toContain('limit=100');
    const p2 = await api('/events?filter[type]=lead_status_changed&limit=100&page=2');
    expect(p2.json._links.next).toBeUndefined();
    const all = [...p1.json._embedded.events, ...p2.json._embedded.events];
    expect(new Set(all.map((e: { id: string }) => e.id)).size).toBe(total);
    // Newest first: the three first moves come last.
    expect(all.slice(-3).map((e: { entity_id: number }) => e.entity_id)).toEqual([11, 21, 11]);
    expect((await api('/events?filter[type]=lead_status_changed&limit=100&page=3')).status).toBe(204);
    const small = await api('/events?limit=2&page=2');
    expect(small.json._embedded.events).toHaveLength(2);
    expect(small.json._links.prev.href).toContain('page=1');
    expect((await api('/events?limit=100&page=50')).status).toBe(204);
  });

  it('goes through the rate gate like every call', async () => {
    const limited = await startKommoSim({ rps: 2, blockAfter429s: 100, accounts: [{ subdomain: 'lim', token: TOKEN, contacts: 5 }] });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) statuses.push((await call(`${limited.url}/lim/api/v4/events`, { token: TOKEN })).status);
      expect(statuses).toEqual([204, 204, 429]);
      expect(limited.stats().requests).toBe(3);
    } finally {
      await limited.close();
    }
  });
});

describe('Kommo simulator: contacts changed since', () => {
  let sim: KommoSim;
  const api = (path: string) => call(`${sim.url}/big/api/v4${path}`, { token: TOKEN });

  beforeAll(async () => {
    sim = await startKommoSim({ rps: 10_000, accounts: [{ subdomain: 'big', token: TOKEN, contacts: 1_000_000 }] });
  });
  afterAll(() => sim.close());

  it('lists only the contacts changed since a time, oldest change first, fast over a million', async () => {
    const since = Math.floor(Date.now() / 1000);
    expect((await api(`/contacts?filter[updated_at][from]=${since}`)).status).toBe(204);
    sim.updateContact('big', 777_777, { name: 'Cambiado A' });
    sim.updateContact('big', 12, { phone: '+54 9 11 4444-0000' });
    sim.createLead('big', { newContact: { name: 'Nueva', phone: '+56 9 1234 5678' }, statusId: sim.pipelines('big')[0].statuses[0].id });
    sim.deleteContact('big', 500_000);
    const started = performance.now();
    const r = await api(`/contacts?filter[updated_at][from]=${since}&order[updated_at]=asc&limit=250`);
    const ms = performance.now() - started;
    const changed = r.json._embedded.contacts as Array<{ id: number; updated_at: number }>;
    expect(changed.map((c) => c.id).sort((a, b) => a - b)).toEqual([12, 777_777, 1_000_001]);
    const order = changed.map((c) => [c.updated_at, c.id]);
    expect(order).toEqual([...order].sort((a, b) => a[0] - b[0] || a[1] - b[1]));
    expect(r.json._embedded.contacts.every((c: { updated_at: number }) => c.updated_at >= since)).toBe(true);
    expect(ms).toBeLessThan(500);
    const until = await api(`/contacts?filter[updated_at][from]=${since}&filter[updated_at][to]=${since - 1}`);
    expect(until.status).toBe(204);
    // The deleted one is found through the events API instead.
    const deleted = await api(`/events?filter[type]=contact_deleted&filter[created_at][from]=${since}`);
    expect(deleted.json._embedded.events.map((e: { entity_id: number }) => e.entity_id)).toEqual([500_000]);
  });
});
