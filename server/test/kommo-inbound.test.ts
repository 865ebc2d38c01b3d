import Fastify, { type FastifyInstance } from 'fastify';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/db/sql';
import { runCatchUp } from '../src/engine/kommo-inbound/catch-up';
import { kommoInboundQueue } from '../src/engine/kommo-inbound/inbound-queue';
import type { LeadStageEvent } from '../src/engine/kommo-inbound/lead-events';
import { createKommoClient } from '../src/integrations/kommo/client';
import { createKommoHookApi } from '../src/integrations/kommo/hook-api';
import { JobRunner } from '../src/jobs/index';
import { queueInboxDrain } from '../src/services/kommo-inbound/drain-jobs';
import { HOOKS_REFUSED } from '../src/services/kommo-inbound/subscription';
import { createKommoTestEnv, waitForHookCheck, type KommoTestEnv } from './helpers/kommo';

/**
 * Between syncs: Kommo's webhooks (form bodies built from Kommo's documented format) through
 * the route into the inbox, the worker applying them against the Kommo simulator's contacts,
 * lead moves reaching the automation's handler once, and the catch-up reading a small fake
 * Kommo (events log, changed contacts) and moving its cursors without missing or doubling.
 */
let env: KommoTestEnv;
let headers: { authorization: string };
let accountId: number;
let secret: string;
const SUB = 'entrada';
const handled: Array<{ accountId: number; events: LeadStageEvent[] }> = [];

const form = (pairs: Array<[string, string | number]>) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`).join('&');
const post = (path: string, payload: string, contentType = 'application/x-www-form-urlencoded') =>
  env.t.app.inject({ method: 'POST', url: path, headers: { 'content-type': contentType }, payload });
const inbox = (id = accountId) =>
  rowsOf<{ id: string; source: string; body: Record<string, unknown>; failed_at: string | null }>(env.t.ctx.db, sql`select id, source, body, failed_at from kommo_inbox where account_id = ${id} order by id`);

async function until<T>(what: () => Promise<T> | T, ok: (v: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await what();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out; last value ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function createAccount(subdomain: string) {
  const res = await env.t.app.inject({ method: 'POST', url: '/api/kommo/accounts', headers, payload: { subdomain, access_token: `tok-${subdomain}`, phone_field_id: env.sim.fields(SUB).phoneFieldId } });
  expect(res.statusCode, res.body).toBe(201);
  const id = res.json().id as number;
  // Its background webhook subscription answers first, so it never overwrites what a test sets.
  await waitForHookCheck(env.t, id);
  const [row] = await rowsOf<{ hook_secret: string }>(env.t.ctx.db, sql`select hook_secret from kommo_accounts where id = ${id}`);
  return { id, secret: row.hook_secret };
}

beforeAll(async () => {
  env = await createKommoTestEnv();
  ({ headers } = await env.t.signUp());
  env.sim.addAccount({ subdomain: SUB, token: `tok-${SUB}`, contacts: 20, seed: 3 });
  ({ id: accountId, secret } = await createAccount(SUB));
});
afterAll(() => env.close());

describe('POST /api/kommo-hooks/:secret', () => {
  it('made a 43-character secret that no API answer shows', async () => {
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const list = await env.t.app.inject({ method: 'GET', url: '/api/kommo/accounts', headers });
    expect(list.body).not.toContain(secret);
    expect(list.json()[0].freshness).toMatchObject({ keep_fresh: true });
  });

  it('answers 404 to an unknown or malformed secret, and stores nothing', async () => {
    const body = form([['contacts[add][0][id]', 1]]);
    const other = secret.slice(0, -1) + (secret.endsWith('A') ? 'B' : 'A');
    for (const s of [other, 'x', '1', secret + 'x', '%00']) {
      const res = await post(`/api/kommo-hooks/${s}`, body);
      expect(res.statusCode, s).toBe(404);
      expect(res.body).not.toContain(secret);
    }
    expect(await inbox()).toEqual([]);
  });

  it('stores one row per POST with what the schema kept, answers 200 at once, notes the time', async () => {
    const body = form([
      ['leads[status][0][id]', 501],
      ['leads[status][0][status_id]', 142],
      ['leads[status][0][pipeline_id]', 7],
      ['leads[status][0][old_status_id]', 60],
      ['leads[status][0][updated_at]', 1_760_000_100],
      ['leads[status][0][custom_fields][0][id]', 9],
      ['leads[status][1][id]', 502],
      ['leads[status][1][status_id]', 61],
      ['leads[status][1][pipeline_id]', 7],
      ['leads[status][1][old_status_id]', 60],
      ['leads[status][1][updated_at]', 1_760_000_101],
      ['companies[add][0][id]', 4],
      ['account[id]', 99],
      ['account[subdomain]', SUB],
    ]);
    const res = await post(`/api/kommo-hooks/${secret}`, body);
    expect(res.statusCode).toBe(200);
    const rows = await inbox();
    expect(rows).toHaveLength(1);
    expect(rows[0].source).toBe('webhook');
    expect(rows[0].body).toEqual({
      account: { id: 99, subdomain: SUB },
      leads: {
        status: [
          { id: 501, status_id: 142, pipeline_id: 7, old_status_id: 60, updated_at: 1_760_000_100 },
          { id: 502, status_id: 61, pipeline_id: 7, old_status_id: 60, updated_at: 1_760_000_101 },
        ],
      },
    });
    const [acc] = await rowsOf<{ hook_last_received_at: string | null }>(env.t.ctx.db, sql`select hook_last_received_at from kommo_accounts where id = ${accountId}`);
    expect(acc.hook_last_received_at).not.toBeNull();
    const jobs = await rowsOf(env.t.ctx.db, sql`select 1 from jobs where queue = 'kommo-inbound' and state = 'waiting'`);
    expect(jobs).toHaveLength(1);
  });

  it('answers 2xx to unknown entity kinds, empty bodies and another account\'s subdomain, storing nothing', async () => {
    for (const body of [form([['talk[add][0][talk_id]', 1]]), '', form([['contacts[add][0][id]', 'no']]), form([['contacts[add][0][id]', 3], ['account[subdomain]', 'otra']])]) {
      const res = await post(`/api/kommo-hooks/${secret}`, body);
      expect(res.statusCode, body).toBe(200);
    }
    expect(await inbox()).toHaveLength(1);
  });

  it('refuses what is not a Kommo form without a 5xx: JSON, prototype keys, deep nesting, NUL, huge bodies', async () => {
    const url = `/api/kommo-hooks/${secret}`;
    const cases: Array<[string, string]> = [
      ['{"contacts":{"add":[{"id":1}]}}', 'application/json'],
      ['__proto__[x]=1', 'application/x-www-form-urlencoded'],
      ['constructor[prototype][x]=1', 'application/x-www-form-urlencoded'],
      [`a${'[b]'.repeat(50)}=1`, 'application/x-www-form-urlencoded'],
      ['contacts[add][0][id]=%00', 'application/x-www-form-urlencoded'],
      ['contacts[add][0][id]=%ED%A0%80', 'application/x-www-form-urlencoded'],
      ['a=%E0%A4%A', 'application/x-www-form-urlencoded'],
      [`x=${'y'.repeat(600 * 1024)}`, 'application/x-www-form-urlencoded'],
      ['x', 'text/plain'],
    ];
    for (const [payload, type] of cases) {
      const res = await post(url, payload, type);
      expect(res.statusCode, payload.slice(0, 40)).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, payload.slice(0, 40)).toBeLessThan(500);
    }
    expect(await inbox()).toHaveLength(1);
  });
});

describe('the inbound worker', () => {
  let runner: JobRunner;
  beforeAll(async () => {
    const client = createKommoClient({ baseUrlTemplate: env.sim.baseUrlTemplate, rps: 50, timeoutMs: 1500, retries: 2, backoffMs: 20 });
    runner = new JobRunner({ db: env.t.ctx.db, log: env.t.ctx.log, owner: 'inbound-test' }).queue(
      kommoInboundQueue(env.t.ctx, {
        client,
        pollMs: 50,
        retryBaseMs: 200,
        onLeadEvents: async (_db, account, events) => void handled.push({ accountId: account.accountId, events }),
      }),
    );
    await runner.start();
  });
  afterAll(() => runner.stop());

  const contactRows = () =>
    rowsOf<{ kommo_id: string; name: string; tags: string[]; custom_fields: Record<string, string> }>(env.t.ctx.db, sql`select kommo_id, name, tags, custom_fields from contacts where account_id = ${accountId} order by kommo_id`);
  const count = async (q = '') => (await env.t.app.inject({ method: 'GET', url: `/api/contacts/${accountId}/count${q}`, headers })).json().count as number;
  const leadMoves = () => handled.filter((h) => h.accountId === accountId).flatMap((h) => h.events);

  it('hands each lead move to the handler once, with the change\'s own time, also when the body comes twice', async () => {
    await until(leadMoves, (m) => m.length === 2);
    expect(leadMoves()).toEqual([
      { leadId: 501, pipelineId: 7, statusId: 142, oldStatusId: 60, on: 'enter', at: 1_760_000_100, source: 'webhook' },
      { leadId: 502, pipelineId: 7, statusId: 61, oldStatusId: 60, on: 'enter', at: 1_760_000_101, source: 'webhook' },
    ]);
    // Kommo delivers the same body again, and the catch-up reports the same move from the events log.
    const again = form([['leads[status][0][id]', 501], ['leads[status][0][status_id]', 142], ['leads[status][0][pipeline_id]', 7], ['leads[status][0][updated_at]', 1_760_000_100]]);
    expect((await post(`/api/kommo-hooks/${secret}`, again)).statusCode).toBe(200);
    await env.t.ctx.db.execute(sql`insert into kommo_inbox (account_id, source, body) values (${accountId}, 'catchup', ${JSON.stringify({
      events: [
        { id: 'ev-1', type: 'lead_status_changed', entityId: 501, entityType: 'lead', createdAt: 1_760_000_100, statusAfter: { id: 142, pipelineId: 7 }, statusBefore: { id: 60, pipelineId: 7 } },
        { id: 'ev-2', type: 'lead_added', entityId: 503, entityType: 'lead', createdAt: 1_760_000_200, statusAfter: { id: 60, pipelineId: 7 }, statusBefore: null },
      ],
    })}::jsonb)`);
    await queueInboxDrain(env.t.ctx.db, accountId);
    await until(leadMoves, (m) => m.length === 3);
    await until(() => inbox(), (rows) => rows.length === 0);
    expect(leadMoves()[2]).toEqual({ leadId: 503, pipelineId: 7, statusId: 60, oldStatusId: null, on: 'created', at: 1_760_000_200, source: 'catchup' });
    expect(leadMoves()).toHaveLength(3);
  });

  it('adds contacts Kommo reports added, with tags and custom fields, so filters and counts see them', async () => {
    expect(await count()).toBe(0);
    const res = await post(`/api/kommo-hooks/${secret}`, form([['contacts[add][0][id]', 1], ['contacts[add][1][id]', 2], ['contacts[add][2][id]', 3], ['account[subdomain]', SUB]]));
    expect(res.statusCode).toBe(200);
    const rows = await until(contactRows, (r) => r.length === 3);
    expect(rows.map((r) => Number(r.kommo_id))).toEqual([1, 2, 3]);
    expect(await count()).toBe(3);
    const fields = await rowsOf<{ n: number }>(env.t.ctx.db, sql`select count(*)::int as n from contact_facets where account_id = ${accountId}`);
    expect(Number(fields[0].n)).toBe(3);
  });

  it('refreshes an edited contact from Kommo by id (name, tags) and the tag filter counts it', async () => {
    env.sim.updateContact(SUB, 2, { name: 'Nombre Nuevo', tags: ['etiqueta-nueva'], custom: { Ciudad: 'Rosario' } });
    expect((await post(`/api/kommo-hooks/${secret}`, form([['contacts[update][0][id]', 2]]))).statusCode).toBe(200);
    const rows = await until(contactRows, (r) => r.find((c) => Number(c.kommo_id) === 2)?.name === 'Nombre Nuevo');
    const two = rows.find((c) => Number(c.kommo_id) === 2)!;
    expect(two.tags).toEqual(['etiqueta-nueva']);
    expect(two.custom_fields.Ciudad).toBe('Rosario');
    expect(await count(`?tags=${encodeURIComponent(JSON.stringify(['etiqueta-nueva']))}`)).toBe(1);
  });

  it('removes a deleted contact, so it leaves the filters; later rows win over earlier ones', async () => {
    env.sim.deleteContact(SUB, 3);
    expect((await post(`/api/kommo-hooks/${secret}`, form([['contacts[delete][0][id]', 3]]))).statusCode).toBe(200);
    await until(contactRows, (r) => r.length === 2);
    expect(await count()).toBe(2);
    // Deleted, then added again in a later POST: added.
    await env.t.ctx.db.execute(sql`insert into kommo_inbox (account_id, source, body) values
      (${accountId}, 'webhook', '{"contacts":{"delete":[{"id":1}]}}'::jsonb), (${accountId}, 'webhook', '{"contacts":{"add":[{"id":1}]}}'::jsonb)`);
    await queueInboxDrain(env.t.ctx.db, accountId);
    await until(() => inbox(), (rows) => rows.length === 0);
    expect((await contactRows()).map((r) => Number(r.kommo_id))).toEqual([1, 2]);
  });

  it('sets a bad row aside with its error and applies the rows behind it', async () => {
    await env.t.ctx.db.execute(sql`insert into kommo_inbox (account_id, source, body) values
      (${accountId}, 'catchup', '{"events":"no es una lista"}'::jsonb), (${accountId}, 'webhook', '{"contacts":{"add":[{"id":4}]}}'::jsonb)`);
    await queueInboxDrain(env.t.ctx.db, accountId);
    await until(contactRows, (r) => r.length === 3);
    const rows = await inbox();
    expect(rows).toHaveLength(1);
    expect(rows[0].failed_at).not.toBeNull();
  });

  it('keeps the rows and retries when Kommo fails, then applies them', async () => {
    await env.t.ctx.db.execute(sql`delete from kommo_inbox where account_id = ${accountId}`);
    env.sim.injectFault({ kind: '5xx', subdomain: SUB, count: 6 });
    expect((await post(`/api/kommo-hooks/${secret}`, form([['contacts[add][0][id]', 5]]))).statusCode).toBe(200);
    await until(contactRows, (r) => r.length === 4, 15_000);
    expect(await inbox()).toEqual([]);
  });
});

describe('the catch-up', () => {
  let fake: FastifyInstance;
  let fakeUrl: string;
  const events: Array<Record<string, unknown>> = [];
  const contacts: Array<Record<string, unknown>> = [];
  const hooksAnswer: number = 403;
  let falso: { id: number; secret: string };
  const T = 1_770_000_000;

  beforeAll(async () => {
    // A small Kommo: the events log (newest first, 100 a page, 204 when empty), contacts changed since (oldest first), webhooks refused.
    fake = Fastify();
    fake.get('/:sub/api/v4/events', async (req, reply) => {
      const q = req.query as Record<string, string>;
      const from = Number(q['filter[created_at][from]'] ?? 0);
      const types = String(q['filter[type]'] ?? '').split(',');
      const page = Number(q.page ?? 1);
      const limit = Math.min(Number(q.limit ?? 100), 100);
      const list = events.filter((e) => Number(e.created_at) >= from && types.includes(String(e.type))).sort((a, b) => Number(b.created_at) - Number(a.created_at));
      const slice = list.slice((page - 1) * limit, page * limit);
      if (slice.length === 0) return reply.code(204).send();
      return { _embedded: { events: slice } };
    });
    fake.get('/:sub/api/v4/contacts', async (req, reply) => {
      const q = req.query as Record<string, string>;
      const from = Number(q['filter[updated_at][from]'] ?? 0);
      const page = Number(q.page ?? 1);
      const limit = Number(q.limit ?? 250);
      const list = contacts.filter((c) => Number(c.updated_at) >= from).sort((a, b) => Number(a.updated_at) - Number(b.updated_at) || Number(a.id) - Number(b.id));
      const slice = list.slice((page - 1) * limit, page * limit);
      if (slice.length === 0) return reply.code(204).send();
      return { _embedded: { contacts: slice } };
    });
    fake.post('/:sub/api/v4/webhooks', async (_req, reply) => reply.code(hooksAnswer).send(hooksAnswer === 200 ? { id: 1, destination: 'x', settings: [] } : { title: 'Forbidden' }));
    fakeUrl = await fake.listen({ host: '127.0.0.1', port: 0 });
    falso = await createAccount('falso');
    // A new account reads Kommo's events log from when it was connected (now); this fake Kommo's
    // clock is T, so the account plays one connected before this release: its cursors start at its first catch-up.
    const [made] = await rowsOf<{ catchup_events_from: string }>(env.t.ctx.db, sql`select catchup_events_from from kommo_accounts where id = ${falso.id}`);
    expect(Math.abs(Number(made.catchup_events_from) - Date.now() / 1000)).toBeLessThan(60);
    await env.t.ctx.db.execute(sql`update kommo_accounts set catchup_events_from = null, catchup_events_seen = null where id = ${falso.id}`);
  });
  afterAll(() => fake.close());

  const api = () => createKommoHookApi(createKommoClient({ baseUrlTemplate: `${fakeUrl}/{subdomain}`, rps: 50, timeoutMs: 1500, retries: 1, backoffMs: 20 }));
  const run = (now: number) => runCatchUp(env.t.ctx, { api: api(), now: () => now * 1000, settleSeconds: 5 }, new AbortController().signal);
  const cursors = async () =>
    (
      await rowsOf<{ catchup_events_from: string | null; catchup_events_seen: string[] | null; catchup_contacts_from: string | null; catchup_contacts_seen: number[] | null; hook_status: string | null; hook_error: string | null; catchup_error: string | null }>(
        env.t.ctx.db,
        sql`select catchup_events_from, catchup_events_seen, catchup_contacts_from, catchup_contacts_seen, hook_status, hook_error, catchup_error from kommo_accounts where id = ${falso.id}`,
      )
    )[0];
  const ev = (id: string, type: string, entity: number, at: number, status = 70) => ({
    id,
    type,
    entity_id: entity,
    entity_type: type.startsWith('contact') ? 'contact' : 'lead',
    created_at: at,
    value_after: type.startsWith('lead') ? [{ lead_status: { id: status, pipeline_id: 7 } }] : [],
    value_before: type === 'lead_status_changed' ? [{ lead_status: { id: 69, pipeline_id: 7 } }] : [],
  });
  const contact = (id: number, at: number) => ({ id, name: `Contacto ${id}`, updated_at: at, custom_fields_values: [], _embedded: { tags: [{ id: 1, name: 'nuevo' }] } });
  const caughtUp = async () => (await inbox(falso.id)).map((r) => r.body);

  it('subscribes lazily, records Kommo\'s refusal as unavailable, and starts its cursors without reading history', async () => {
    await env.t.ctx.db.execute(sql`update kommo_accounts set hook_status = null, hook_checked_at = null where id = ${falso.id}`);
    events.push(ev('old', 'lead_status_changed', 1, T - 100));
    await run(T);
    const c = await cursors();
    expect(c).toMatchObject({ hook_status: 'unavailable', hook_error: HOOKS_REFUSED, catchup_error: null });
    expect(Number(c.catchup_events_from)).toBe(T - 5);
    expect(Number(c.catchup_contacts_from)).toBe(T - 5);
    expect(await caughtUp()).toEqual([]);
  });

  it('takes in events and changed contacts once, moving its cursors with them', async () => {
    events.push(ev('a', 'lead_status_changed', 11, T + 1), ev('b', 'lead_added', 12, T + 1), ev('c', 'contact_deleted', 13, T + 2), ev('x', 'lead_restored', 14, T + 2));
    contacts.push(contact(21, T + 1), contact(22, T + 2));
    await run(T + 10);
    const found = await caughtUp();
    expect(found).toHaveLength(2);
    const evRow = found.find((b) => 'events' in b) as { events: Array<{ id: string }> };
    expect(evRow.events.map((e) => e.id).sort()).toEqual(['a', 'b', 'c', 'x'].filter((id) => id !== 'x'));
    const cRow = found.find((b) => 'contacts' in b) as { contacts: Array<{ id: number }> };
    expect(cRow.contacts.map((x) => x.id)).toEqual([21, 22]);
    let c = await cursors();
    expect([Number(c.catchup_events_from), c.catchup_events_seen]).toEqual([T + 2, ['c']]);
    expect([Number(c.catchup_contacts_from), c.catchup_contacts_seen]).toEqual([T + 2, [22]]);

    // Nothing new: nothing doubled.
    await run(T + 11);
    expect(await caughtUp()).toHaveLength(2);

    // More at the cursor's second, and one too recent to be settled: the first now, the second later.
    events.push(ev('d', 'lead_status_changed', 15, T + 2), ev('e', 'lead_status_changed', 16, T + 9));
    contacts.push(contact(23, T + 2), contact(24, T + 9));
    await run(T + 12);
    const third = (await caughtUp()).slice(2);
    expect(third.map((b) => ('events' in b ? (b.events as Array<{ id: string }>).map((e) => e.id) : (b.contacts as Array<{ id: number }>).map((x) => x.id)))).toEqual([['d'], [23]]);
    c = await cursors();
    expect([Number(c.catchup_events_from), c.catchup_events_seen]).toEqual([T + 2, ['c', 'd']]);
    expect([Number(c.catchup_contacts_from), c.catchup_contacts_seen]).toEqual([T + 2, [22, 23]]);
    await run(T + 20);
    const fourth = (await caughtUp()).slice(4);
    expect(fourth.map((b) => ('events' in b ? (b.events as Array<{ id: string }>).map((e) => e.id) : (b.contacts as Array<{ id: number }>).map((x) => x.id)))).toEqual([['e'], [24]]);
    // Each finding queued its account's drain.
    const jobs = await rowsOf(env.t.ctx.db, sql`select 1 from jobs where queue = 'kommo-inbound' and key = ${String(falso.id)} and state = 'waiting'`);
    expect(jobs).toHaveLength(1);
  });

  it('pages through more than a page of changed contacts and of events', async () => {
    for (let i = 0; i < 260; i++) contacts.push(contact(1000 + i, T + 30 + Math.floor(i / 100)));
    for (let i = 0; i < 130; i++) events.push(ev(`m${i}`, 'lead_status_changed', 2000 + i, T + 30));
    await run(T + 40);
    const rows = (await caughtUp()).slice(6);
    const ids = rows.flatMap((b) => ('contacts' in b ? (b.contacts as Array<{ id: number }>).map((x) => x.id) : []));
    expect(ids).toEqual(Array.from({ length: 260 }, (_, i) => 1000 + i));
    expect(rows.flatMap((b) => ('events' in b ? (b.events as unknown[]) : []))).toHaveLength(130);
    const c = await cursors();
    expect(Number(c.catchup_contacts_from)).toBe(T + 32);
  });

  it('leaves an account with «Mantener contactos al día» off alone, and says so on its card', async () => {
    const res = await env.t.app.inject({ method: 'PATCH', url: `/api/kommo/accounts/${falso.id}/keep-fresh`, headers, payload: { keep_fresh: false } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().freshness).toMatchObject({ keep_fresh: false, source: 'off' });
    events.push(ev('z', 'lead_status_changed', 99, T + 50));
    const before = (await caughtUp()).length;
    await run(T + 60);
    expect(await caughtUp()).toHaveLength(before);
    const bad = await env.t.app.inject({ method: 'PATCH', url: `/api/kommo/accounts/${falso.id}/keep-fresh`, headers, payload: { keep_fresh: 'sí' } });
    expect(bad.statusCode).toBe(400);
  });
});
