import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startKommoSim, type KommoSim } from '../src/kommo/index';
import { call, waitFor } from './helpers/graph';

/** Kommo's account webhooks: subscriptions API, form-encoded delivery, retries and control. */

const TOKEN = 'kommo-token';

interface Arrival {
  raw: string;
  contentType: string | undefined;
  status: number;
}

/** A tiny form endpoint: keeps every POST (answered or failed) with its raw body. */
async function startFormReceiver() {
  const arrivals: Arrival[] = [];
  let failures = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const status = failures > 0 ? 500 : 200;
      if (failures > 0) failures--;
      arrivals.push({ raw: Buffer.concat(chunks).toString('utf8'), contentType: req.headers['content-type'], status });
      res.statusCode = status;
      res.end(status === 200 ? 'ok' : 'fail');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/kommo/hooks`,
    arrivals,
    ok: () => arrivals.filter((a) => a.status === 200),
    failNext: (n: number) => {
      failures = n;
    },
    clear: () => {
      arrivals.length = 0;
      failures = 0;
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** Decoded form fields in order, as [key, value]. */
function fields(raw: string): Array<[string, string]> {
  return [...new URLSearchParams(raw).entries()];
}

/** PHP's reading of a form body: `a[b][0][c]=v` → {a: {b: {0: {c: v}}}}. */
function phpParse(raw: string): any {
  const root: any = {};
  for (const [key, value] of new URLSearchParams(raw)) {
    const parts = key.replace(/\]/g, '').split('[');
    let node = root;
    parts.forEach((p, i) => {
      if (i === parts.length - 1) node[p] = value;
      else node = node[p] ??= {};
    });
  }
  return root;
}

describe('Kommo simulator: webhook subscriptions API', () => {
  let sim: KommoSim;
  const api = (path: string, init: { method?: string; body?: unknown; token?: string } = {}) =>
    call(`${sim.url}/hooks/api/v4${path}`, { token: TOKEN, ...init });

  beforeAll(async () => {
    sim = await startKommoSim({ rps: 10_000, accounts: [{ subdomain: 'hooks', token: TOKEN, contacts: 20 }] });
  });
  afterAll(() => sim.close());

  it('adds, lists, replaces and deletes subscriptions by destination', async () => {
    expect((await api('/webhooks')).status).toBe(204);
    const added = await api('/webhooks', { body: { destination: 'https://example.test/a', settings: ['status_lead', 'add_lead'], sort: 10 } });
    expect(added.status).toBe(200);
    expect(added.headers.get('content-type')).toMatch(/^application\/hal\+json/);
    expect(added.json).toEqual({
      id: expect.any(Number),
      destination: 'https://example.test/a',
      created_at: expect.any(Number),
      updated_at: expect.any(Number),
      account_id: expect.any(Number),
      created_by: expect.any(Number),
      sort: 10,
      disabled: false,
      settings: ['status_lead', 'add_lead'],
    });
    await api('/webhooks', { body: { destination: 'https://example.test/b', settings: ['add_contact'] } });

    // The same destination again replaces its settings and keeps its id.
    const again = await api('/webhooks', { body: { destination: 'https://example.test/a', settings: ['update_contact'] } });
    expect(again.json).toMatchObject({ id: added.json.id, settings: ['update_contact'], sort: 10 });

    const list = await api('/webhooks');
    expect(list.json._total_items).toBe(2);
    expect(list.json._embedded.webhooks.map((w: { destination: string }) => w.destination).sort()).toEqual(['https://example.test/a', 'https://example.test/b']);
    const one = await api(`/webhooks?filter[destination]=${encodeURIComponent('https://example.test/b')}`);
    expect(one.json._embedded.webhooks).toEqual([expect.objectContaining({ destination: 'https://example.test/b', settings: ['add_contact'] })]);
    expect(sim.webhooks('hooks')).toHaveLength(2);

    expect((await api('/webhooks', { method: 'DELETE', body: { destination: 'https://example.test/a' } })).status).toBe(204);
    expect((await api('/webhooks', { method: 'DELETE', body: { destination: 'https://example.test/a' } })).status).toBe(404);
    expect(sim.webhooks('hooks').map((w) => w.destination)).toEqual(['https://example.test/b']);
  });

  it('refuses unknown settings and bad destinations with Kommo’s validation errors', async () => {
    const r = await api('/webhooks', { body: { destination: 'https://example.test/c', settings: ['status_lead', 'lead_moved'] } });
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(r.json).toMatchObject({ status: 400, title: 'Bad Request' });
    expect(r.json['validation-errors']).toEqual([
      { request_id: '0', errors: [{ code: 'NotSupportedChoice', path: 'settings.1', detail: expect.any(String) }] },
    ]);
    const bad = await api('/webhooks', { body: { destination: 'not a url', settings: [] } });
    expect(bad.json['validation-errors'][0].errors.map((e: { path: string }) => e.path)).toEqual(['destination', 'settings']);
    expect(sim.webhooks('hooks').map((w) => w.destination)).not.toContain('https://example.test/c');
  });

  it('needs the token and counts toward the rate like every route', async () => {
    const before = sim.stats().requests;
    expect((await api('/webhooks', { token: 'wrong' })).status).toBe(401);
    expect(sim.stats().requests).toBe(before + 1);
  });
});

describe('Kommo simulator: webhook delivery', () => {
  let sim: KommoSim;
  let rx: Awaited<ReturnType<typeof startFormReceiver>>;
  let main: { id: number; statuses: number[] };
  const api = (path: string, init: { method?: string; body?: unknown } = {}) => call(`${sim.url}/acme/api/v4${path}`, { token: TOKEN, ...init });
  const subscribe = (settings: string[]) => api('/webhooks', { body: { destination: rx.url, settings } });

  beforeAll(async () => {
    sim = await startKommoSim({ rps: 10_000, accounts: [{ subdomain: 'acme', token: TOKEN, contacts: 200 }] });
    rx = await startFormReceiver();
    const p = sim.pipelines('acme')[0];
    main = { id: p.id, statuses: p.statuses.map((s) => s.id) };
  });
  afterAll(async () => {
    await sim.close();
    await rx.close();
  });
  beforeEach(() => {
    sim.configureWebhooks({ enabled: true, duplicates: 0, failFirst: 0 });
  });
  afterEach(async () => {
    await sim.flushWebhooks();
    await api('/webhooks', { method: 'DELETE', body: { destination: rx.url } });
    rx.clear();
    sim.reset();
  });

  it('posts a stage move form-encoded with exactly Kommo’s keys, after the move returns', async () => {
    await subscribe(['status_lead']);
    const lead = sim.moveLead('acme', 31, main.statuses[2]);
    expect(rx.arrivals).toHaveLength(0); // asynchronous: nothing was posted yet
    await sim.flushWebhooks();
    expect(rx.arrivals).toHaveLength(1);
    const [post] = rx.arrivals;
    expect(post.contentType).toBe('application/x-www-form-urlencoded');
    expect(fields(post.raw).map(([k]) => k)).toEqual([
      'leads[status][0][id]',
      'leads[status][0][name]',
      'leads[status][0][status_id]',
      'leads[status][0][old_status_id]',
      'leads[status][0][price]',
      'leads[status][0][responsible_user_id]',
      'leads[status][0][last_modified]',
      'leads[status][0][modified_user_id]',
      'leads[status][0][created_user_id]',
      'leads[status][0][date_create]',
      'leads[status][0][pipeline_id]',
      'leads[status][0][old_pipeline_id]',
      'leads[status][0][account_id]',
      'leads[status][0][created_at]',
      'leads[status][0][updated_at]',
      'account[subdomain]',
      'account[id]',
      'account[_links][self]',
    ]);
    const f = Object.fromEntries(fields(post.raw));
    expect(f).toMatchObject({
      'leads[status][0][id]': '31',
      'leads[status][0][status_id]': String(main.statuses[2]),
      'leads[status][0][pipeline_id]': String(main.id),
      'leads[status][0][old_status_id]': String(main.statuses[1]),
      'leads[status][0][old_pipeline_id]': String(main.id),
      'leads[status][0][price]': '0',
      'leads[status][0][name]': 'Lead #31',
      'leads[status][0][updated_at]': String(lead.updatedAt),
      'account[subdomain]': 'acme',
      'account[_links][self]': `${sim.url}/acme`,
    });
    // The webhook's second is the event's second.
    const events = await api(`/events?filter[type]=lead_status_changed&filter[entity_id][]=31&filter[entity]=lead`);
    expect(events.json._embedded.events[0].created_at).toBe(Number(f['leads[status][0][updated_at]']));
    expect(sim.webhookStats()).toEqual({ delivered: 1, failed: 0, attempts: 1, pending: 0 });
  });

  it('matches a body built from Kommo’s documented format, field for field', async () => {
    await subscribe(['status_lead']);
    const lead = sim.createLead('acme', {
      contactId: 7,
      statusId: main.statuses[1],
      name: 'Venta Ana',
      price: 1500,
      customFieldsValues: [{ field_id: 427661, field_name: 'Producto', values: [{ value: 'Plan Pro' }] }],
    });
    sim.moveLead('acme', lead.id, 142);
    await sim.flushWebhooks();
    // Layout of the status-change sample in Kommo's webhook format reference (amoCRM
    // "webhooks-format": leads → status → 0 → fields, custom_fields as id/name/values), plus the
    // pipeline ids and account block a stage move carries (growth-2026 §4.1 / T2).
    const documented = new URLSearchParams([
      ['leads[status][0][id]', '25399013'],
      ['leads[status][0][name]', 'Lead title'],
      ['leads[status][0][old_status_id]', '7039101'],
      ['leads[status][0][status_id]', '142'],
      ['leads[status][0][price]', '0'],
      ['leads[status][0][responsible_user_id]', '123123'],
      ['leads[status][0][last_modified]', '1413554372'],
      ['leads[status][0][modified_user_id]', '123123'],
      ['leads[status][0][created_user_id]', '123123'],
      ['leads[status][0][date_create]', '1413554349'],
      ['leads[status][0][account_id]', '7039099'],
      ['leads[status][0][custom_fields][0][id]', '427661'],
      ['leads[status][0][custom_fields][0][name]', 'Text custom field'],
      ['leads[status][0][custom_fields][0][values][0][value]', 'Валера'],
      ['leads[status][0][pipeline_id]', '3104455'],
      ['leads[status][0][old_pipeline_id]', '3104455'],
      ['account[subdomain]', 'test'],
      ['account[id]', '7039099'],
      ['account[_links][self]', 'https://test.amocrm.ru'],
    ]).toString();
    const ours = phpParse(rx.arrivals[0].raw);
    const theirs = phpParse(documented);
    // Every documented field is there, in the same nesting (a PHP or qs parser reads both alike).
    const keysOf = (o: any): string[] => Object.entries(o).flatMap(([k, v]) => (typeof v === 'object' ? keysOf(v).map((s) => `${k}.${s}`) : [k]));
    expect(keysOf(ours)).toEqual(expect.arrayContaining(keysOf(theirs)));
    expect(ours.leads.status['0']).toMatchObject({
      id: String(lead.id), name: 'Venta Ana', status_id: '142', old_status_id: String(main.statuses[1]), price: '1500',
      custom_fields: { 0: { id: '427661', name: 'Producto', values: { 0: { value: 'Plan Pro' } } } },
    });
    expect(Object.keys(ours)).toEqual(['leads', 'account']);
  });

  it('puts several leads in one POST when asked (perPost), and one per POST by default', async () => {
    await subscribe(['status_lead']);
    sim.moveLeads('acme', [11, 21, 31, 61, 71].map((id) => ({ id, statusId: main.statuses[3] })), { perPost: 2 });
    await sim.flushWebhooks();
    const perPost = rx.arrivals.map((a) => Object.keys(phpParse(a.raw).leads.status).length).sort();
    expect(perPost).toEqual([1, 2, 2]);
    const ids = rx.arrivals.flatMap((a) => Object.values(phpParse(a.raw).leads.status).map((l: any) => Number(l.id))).sort((a, b) => a - b);
    expect(ids).toEqual([11, 21, 31, 61, 71]);
    rx.clear();
    sim.moveLeads('acme', [11, 21, 31].map((id) => ({ id, statusId: main.statuses[2] })));
    await sim.flushWebhooks();
    expect(rx.arrivals.map((a) => Object.keys(phpParse(a.raw).leads.status).length)).toEqual([1, 1, 1]);
  });

  it('delivers a burst of 50 leads in one POST', async () => {
    await subscribe(['status_lead']);
    const moves = Array.from({ length: 50 }, (_, i) => ({ id: (i + 101) * 10 + 1, statusId: main.statuses[2] })).filter((m) => ((m.id - 1) / 10) % 4 !== 0);
    sim.moveLeads('acme', moves, { perPost: 50 });
    await sim.flushWebhooks();
    expect(rx.arrivals).toHaveLength(1);
    expect(Object.keys(phpParse(rx.arrivals[0].raw).leads.status)).toHaveLength(moves.length);
  });

  it('PATCH /api/v4/leads that changes a stage emits status_lead and update_lead', async () => {
    await subscribe(['status_lead', 'update_lead']);
    const r = await api('/leads', { method: 'PATCH', body: [{ id: 91, status_id: main.statuses[3] }, { id: 101, price: 900 }] });
    expect(r.status).toBe(200);
    await sim.flushWebhooks();
    const bodies = rx.arrivals.map((a) => phpParse(a.raw));
    const status = bodies.filter((b) => b.leads.status).map((b) => b.leads.status['0']);
    const updates = bodies.filter((b) => b.leads.update).map((b) => b.leads.update['0']);
    expect(status).toEqual([expect.objectContaining({ id: '91', status_id: String(main.statuses[3]), old_status_id: String(main.statuses[1]) })]);
    expect(updates.map((u) => [u.id, u.price]).sort()).toEqual([['101', '900'], ['91', '0']]);
    // The same stage again changes nothing and posts nothing.
    rx.clear();
    await api('/leads', { method: 'PATCH', body: [{ id: 91, status_id: main.statuses[3] }] });
    await sim.flushWebhooks();
    expect(rx.arrivals).toHaveLength(0);
  });

  it('announces created leads and contacts: add, update, delete, restore', async () => {
    await subscribe(['add_lead', 'add_contact', 'update_contact', 'delete_contact', 'restore_contact']);
    const lead = sim.createLead('acme', { newContact: { name: 'Lucía Gómez', phone: '+54 9 11 5555-0101' }, statusId: main.statuses[0], price: 300 });
    await sim.flushWebhooks();
    const [contactPost, leadPost] = rx.arrivals.map((a) => phpParse(a.raw));
    expect(contactPost.contacts.add['0']).toMatchObject({
      id: String(lead.contactId), name: 'Lucía Gómez', type: 'contact',
      custom_fields: { 0: { code: 'PHONE', values: { 0: { value: '+54 9 11 5555-0101' } } } },
      linked_leads_id: { [lead.id]: { ID: String(lead.id) } },
    });
    expect(leadPost.leads.add['0']).toMatchObject({
      id: String(lead.id), status_id: String(main.statuses[0]), pipeline_id: String(main.id), price: '300',
      created_at: String(lead.createdAt), updated_at: String(lead.updatedAt),
    });
    const added = (await api(`/events?filter[type]=lead_added`)).json._embedded.events;
    expect(added[0]).toMatchObject({ entity_id: lead.id, created_at: lead.createdAt });
    expect(Number(leadPost.leads.add['0'].updated_at)).toBe(added[0].created_at);

    rx.clear();
    sim.updateContact('acme', 5, { name: 'Nuevo nombre' });
    const [first] = sim.addContacts('acme', 2);
    sim.deleteContact('acme', 6);
    sim.restoreContact('acme', 6);
    await sim.flushWebhooks();
    const bodies = rx.arrivals.map((a) => phpParse(a.raw).contacts);
    const byAction = (action: string) => bodies.filter((b) => b[action]).flatMap((b) => Object.values(b[action]) as any[]);
    expect(byAction('update')).toEqual([expect.objectContaining({ id: '5', name: 'Nuevo nombre', updated_at: expect.any(String) })]);
    expect(byAction('add').map((c) => Number(c.id))).toEqual([first, first + 1]);
    expect(byAction('delete')).toEqual([{ id: '6', type: 'contact' }]);
    expect(byAction('restore').map((c) => c.id)).toEqual(['6']);
  });

  it('delivers each POST extra times on command (duplicates)', async () => {
    await subscribe(['status_lead']);
    sim.configureWebhooks({ duplicates: 2 });
    sim.moveLead('acme', 131, main.statuses[2]);
    await sim.flushWebhooks();
    expect(rx.arrivals).toHaveLength(3);
    expect(new Set(rx.arrivals.map((a) => a.raw)).size).toBe(1);
    expect(sim.webhookStats()).toMatchObject({ delivered: 3, failed: 0, pending: 0 });
  });

  it('retries a non-2xx answer with back-off, and gives up after 4 attempts', async () => {
    await subscribe(['status_lead']);
    rx.failNext(2);
    sim.moveLead('acme', 141, main.statuses[2]);
    await sim.flushWebhooks();
    expect(rx.arrivals.map((a) => a.status)).toEqual([500, 500, 200]);
    expect(new Set(rx.arrivals.map((a) => a.raw)).size).toBe(1);
    expect(sim.webhookStats()).toEqual({ delivered: 1, failed: 0, attempts: 3, pending: 0 });

    rx.clear();
    rx.failNext(10);
    sim.moveLead('acme', 141, main.statuses[3]);
    await sim.flushWebhooks();
    expect(rx.arrivals).toHaveLength(4);
    expect(sim.webhookStats()).toMatchObject({ delivered: 1, failed: 1, attempts: 7 });
  });

  it('failFirst: posts, ignores the answer and retries, so the receiver sees the body twice', async () => {
    await subscribe(['status_lead']);
    sim.configureWebhooks({ failFirst: 1 });
    sim.moveLead('acme', 151, main.statuses[2]);
    await sim.flushWebhooks();
    expect(rx.arrivals.map((a) => a.status)).toEqual([200, 200]);
    expect(sim.webhookStats()).toEqual({ delivered: 1, failed: 0, attempts: 2, pending: 0 });
  });

  it('survives a destination that refuses connections', async () => {
    const closed = await startFormReceiver();
    const url = closed.url;
    await closed.close();
    await api('/webhooks', { body: { destination: url, settings: ['status_lead'] } });
    sim.moveLead('acme', 221, main.statuses[2]);
    await sim.flushWebhooks();
    expect(sim.webhookStats()).toMatchObject({ delivered: 0, failed: 1, attempts: 4, pending: 0 });
    await api('/webhooks', { method: 'DELETE', body: { destination: url } });
    expect((await api('/account')).status).toBe(200);
  });

  it('delivers nothing while webhooks are disabled, but still logs the events', async () => {
    await subscribe(['status_lead']);
    sim.configureWebhooks({ enabled: false });
    const lead = sim.moveLead('acme', 171, main.statuses[2]);
    await sim.flushWebhooks();
    await new Promise((r) => setTimeout(r, 50));
    expect(rx.arrivals).toHaveLength(0);
    expect(sim.webhookStats()).toEqual({ delivered: 0, failed: 0, attempts: 0, pending: 0 });
    const events = await api(`/events?filter[entity]=lead&filter[entity_id][]=171`);
    expect(events.json._embedded.events[0]).toMatchObject({ type: 'lead_status_changed', created_at: lead.updatedAt });
  });

  it('is driven over /__control too', async () => {
    const c = (path: string, body?: unknown) => call(`${sim.url}/__control${path}`, { body });
    await subscribe(['status_lead', 'add_lead']);
    expect((await c(`/webhooks?subdomain=acme`)).json.webhooks).toEqual([expect.objectContaining({ destination: rx.url, settings: ['status_lead', 'add_lead'] })]);
    expect((await c('/webhooks/configure', { duplicates: 1 })).json).toMatchObject({ ok: true, duplicates: 1 });
    const created = await c('/leads', { subdomain: 'acme', contact_id: 9, status_id: main.statuses[1], name: 'Por control', price: 10 });
    expect(created.json).toMatchObject({ ok: true, lead: { name: 'Por control', contactId: 9, statusId: main.statuses[1], pipelineId: main.id, price: 10 } });
    const one = await c('/leads/move', { subdomain: 'acme', id: created.json.lead.id, status_id: main.statuses[2] });
    expect(one.json.leads[0]).toMatchObject({ id: created.json.lead.id, statusId: main.statuses[2] });
    const many = await c('/leads/move', { subdomain: 'acme', moves: [{ id: 181, status_id: 143 }, { id: 191, status_id: 143 }], per_post: 2 });
    expect(many.json.leads.map((l: { statusId: number }) => l.statusId)).toEqual([143, 143]);
    expect((await c('/leads/move', { subdomain: 'acme', id: 181, status_id: 999 })).status).toBe(400);
    await c('/webhooks/flush', {});
    await waitFor(() => rx.arrivals.length === 6);
    const stats = (await call(`${sim.url}/__control/webhooks/stats`)).json;
    expect(stats).toEqual({ delivered: 6, failed: 0, attempts: 6, pending: 0 });
    await c('/webhooks/configure', { duplicates: 0 });
  });
});
