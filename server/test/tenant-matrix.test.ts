import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/db/sql';
import { insertContact, seedCampaignWorld } from './helpers/campaign-fixtures';
import { createTestApp, type TestApp } from './helpers/app';

/**
 * Tenant A owns one of everything; tenant B calls every route of the OpenAPI document that has
 * an id in its path, with each of A's ids in each id slot. Every call must be a 404 (or a 400
 * for a body refused before any lookup), and A's data must be exactly as before. Routes are
 * read from the document, so a route added later is covered without editing this file.
 */
let t: TestApp;
type User = Awaited<ReturnType<TestApp['signUp']>>;
let a: User;
let b: User;
const ids: Record<string, number> = {};

beforeAll(async () => {
  // Nothing here may reach a real provider: closed local ports instead.
  t = await createTestApp({ KOMMO_BASE_URL: 'http://127.0.0.1:9/{subdomain}', WHATSAPP_GRAPH_URL: 'http://127.0.0.1:9' });
  a = await t.signUp();
  b = await t.signUp();
  const world = await seedCampaignWorld(t.ctx.db, t.ctx.secrets, a.userId, {
    number: { phoneNumberId: '880001', wabaId: '880002', token: 'tok-a', verifyToken: 'verif-a' },
    subdomain: 'tenanta',
  });
  ids.kommo = world.kommoAccountId;
  ids.whatsapp = world.whatsappAccountId;
  ids.template = world.templateId;
  ids.contact = await insertContact(t.ctx.db, a.userId, world.kommoAccountId, { kommoId: 77, name: 'Ana', phone: '+5491155550077' });
  const entry = await t.app.inject({
    method: 'POST',
    url: `/api/blacklist/${world.kommoAccountId}`,
    headers: a.headers,
    payload: { phone: '+5491155550088', reason: 'baja' },
  });
  expect(entry.statusCode, entry.body).toBeLessThan(300);
  const [bl] = await rowsOf<{ id: number }>(t.ctx.db, sql`select id from blacklist where user_id = ${a.userId}`);
  ids.blacklist = Number(bl.id);
  const campaign = await t.app.inject({
    method: 'POST',
    url: '/api/campaigns',
    headers: a.headers,
    payload: { name: 'Campaña A', kommo_account_id: world.kommoAccountId, whatsapp_account_id: world.whatsappAccountId, template_id: world.templateId },
  });
  expect(campaign.statusCode, campaign.body).toBeLessThan(300);
  ids.campaign = Number(campaign.json().id);
  // Rate cards: A has its own rate card; B's pricing calls (no id in their path) must not reach it.
  const card = await t.app.inject({
    method: 'PUT',
    url: '/api/pricing/csv',
    headers: a.headers,
    payload: { csv: 'categoria,pais,vigente_desde,usd_por_mensaje\nmarketing,AR,2026-01-01,0.05' },
  });
  expect(card.statusCode, card.body).toBe(200);
});
afterAll(() => t?.close());

const TABLES = ['kommo_accounts', 'whatsapp_accounts', 'templates', 'contacts', 'blacklist', 'campaigns', 'rate_card_rates'];
async function snapshot(userId: number) {
  const out: Record<string, unknown> = {};
  for (const table of TABLES) {
    out[table] = await rowsOf(t.ctx.db, sql`select * from ${sql.identifier(table)} where user_id = ${userId} order by id`);
  }
  out.rate_cards = await rowsOf(t.ctx.db, sql`select * from rate_cards where user_id = ${userId}`);
  out.users = await rowsOf(t.ctx.db, sql`select id, email, password_hash, token_version from users where id = ${userId}`);
  return JSON.parse(JSON.stringify(out, (_k, v) => (typeof v === 'bigint' ? String(v) : v)));
}

/** Valid bodies, so a route gets as far as its ownership check; anything else sends `{}`. */
function bodyFor(method: string, path: string): unknown {
  const key = `${method} ${path}`;
  const known: Record<string, unknown> = {
    'PUT /api/kommo/accounts/{id}': { subdomain: 'tenantb', access_token: 'tok-b', phone_field_id: 1, default_country: 'CO' },
    'PUT /api/whatsapp-accounts/{id}': {
      name: 'B',
      phone_number: '+5491100000009',
      phone_number_id: '990001',
      access_token: 'tok-b',
      business_account_id: '990002',
    },
    'POST /api/blacklist/{accountId}': { phone: '+5491155550099', reason: 'b' },
    'POST /api/contacts/{accountId}/export': {},
    'POST /api/variables/template/{templateId}/mappings': { mappings: [] },
    'POST /api/variables/template/{templateId}/preview': { sampleData: {} },
    'POST /api/variables/template/{templateId}/test': { contactId: ids.contact },
    'PUT /api/campaigns/{id}': { name: 'Robada' },
    'POST /api/campaigns/{id}/retry-unknown': { confirm: true },
    'PATCH /api/templates/{id}/ttl': { message_send_ttl_seconds: 86_400 },
  };
  return key in known ? known[key] : {};
}

/** A valid query string for routes that refuse a call without one before any lookup. */
function queryFor(method: string, path: string): string {
  const known: Record<string, string> = {
    'GET /api/campaigns/{id}/preflight/excluded': '?reason=invalid_phone&format=csv',
  };
  return known[`${method} ${path}`] ?? '';
}

interface OpenApiOperation {
  parameters?: Array<{ in: string; name: string; schema?: { type?: string } }>;
  requestBody?: unknown;
}

describe('tenant matrix', () => {
  it('answers 404 to every route with an id of another tenant, and changes nothing', async () => {
    const before = await snapshot(a.userId);
    const doc = t.app.swagger() as { paths: Record<string, Record<string, OpenApiOperation>> };
    const problems: string[] = [];
    let calls = 0;
    const allIds = Object.values(ids);
    for (const [path, byMethod] of Object.entries(doc.paths)) {
      for (const [lower, op] of Object.entries(byMethod)) {
        const pathParams = (op.parameters ?? []).filter((p) => p.in === 'path');
        if (!pathParams.length) continue;
        const method = lower.toUpperCase();
        const idParams = pathParams.filter((p) => p.schema?.type !== 'string');
        if (!idParams.length) continue;
        // Every combination of A's ids over the id slots; text slots get a field name A uses.
        let combos: Array<Record<string, string>> = [{}];
        for (const p of idParams) combos = combos.flatMap((c) => allIds.map((id) => ({ ...c, [p.name]: String(id) })));
        for (const combo of combos) {
          const url = pathParams.reduce((u, p) => u.replace(`{${p.name}}`, combo[p.name] ?? 'Ciudad'), path) + queryFor(method, path);
          const res = await t.app.inject({
            method: method as 'GET',
            url,
            headers: b.headers,
            ...(op.requestBody ? { payload: bodyFor(method, path) as object } : {}),
          });
          calls++;
          if (res.statusCode !== 404 && res.statusCode !== 400) problems.push(`${res.statusCode} ${method} ${url} → ${res.body.slice(0, 160)}`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(calls).toBeGreaterThan(100);
    expect(await snapshot(a.userId)).toEqual(before);
    // A still sees its own campaign: the ids above were live.
    const own = await t.app.inject({ method: 'GET', url: `/api/campaigns/${ids.campaign}`, headers: a.headers });
    expect(own.statusCode).toBe(200);
  });

  it('keeps each tenant on its own rate card through every pricing route', async () => {
    const before = await snapshot(a.userId);
    const bCard = await t.app.inject({ method: 'GET', url: '/api/pricing', headers: b.headers });
    expect(bCard.json().is_default).toBe(true);
    expect((await t.app.inject({ method: 'GET', url: '/api/pricing/csv', headers: b.headers })).body).not.toContain('marketing,AR,2026-01-01,0.05');
    const put = await t.app.inject({
      method: 'PUT',
      url: '/api/pricing/csv',
      headers: b.headers,
      payload: { csv: 'categoria,pais,vigente_desde,usd_por_mensaje\nmarketing,AR,2026-01-01,0.9' },
    });
    expect(put.statusCode).toBe(200);
    expect((await t.app.inject({ method: 'DELETE', url: '/api/pricing', headers: b.headers })).statusCode).toBe(200);
    expect(await snapshot(a.userId)).toEqual(before);
    const aCard = (await t.app.inject({ method: 'GET', url: '/api/pricing', headers: a.headers })).json();
    expect(aCard.rates).toEqual([expect.objectContaining({ market: 'AR', usd_per_message: 0.05 })]);
  });
});

describe('tenant matrix: ids in the body (pre-flight, frequency cap)', () => {
  it('the pre-flight with any of A’s references answers 404, and B’s frequency cap is B’s', async () => {
    const before = await snapshot(a.userId);
    // B's own world, so each call mixes exactly one of A's ids into otherwise valid references.
    const own = await seedCampaignWorld(t.ctx.db, t.ctx.secrets, b.userId, { number: { phoneNumberId: '880101', wabaId: '880102', token: 'tok-b' }, subdomain: 'tenantb2' });
    const base = { kommo_account_id: own.kommoAccountId, whatsapp_account_id: own.whatsappAccountId, template_id: own.templateId };
    const mine = await t.app.inject({ method: 'POST', url: '/api/campaigns/preflight', headers: b.headers, payload: base });
    expect(mine.statusCode, mine.body).toBe(200);
    for (const [field, id] of [['kommo_account_id', ids.kommo], ['whatsapp_account_id', ids.whatsapp], ['template_id', ids.template]] as const) {
      const res = await t.app.inject({ method: 'POST', url: '/api/campaigns/preflight', headers: b.headers, payload: { ...base, [field]: id } });
      expect(res.statusCode, `${field}: ${res.body}`).toBe(404);
      // The contacts behind an exclusion of that pre-flight: not found either, in both formats.
      for (const format of ['json', 'csv']) {
        const list = await t.app.inject({
          method: 'POST',
          url: `/api/campaigns/preflight/excluded?reason=invalid_phone&format=${format}`,
          headers: b.headers,
          payload: { ...base, [field]: id },
        });
        expect(list.statusCode, `${field} ${format}: ${list.body}`).toBe(404);
      }
    }
    const put = await t.app.inject({ method: 'PUT', url: '/api/settings/frequency-cap', headers: b.headers, payload: { cap: { max_messages: 3, days: 5 } } });
    expect(put.statusCode).toBe(200);
    const theirs = await t.app.inject({ method: 'GET', url: '/api/settings/frequency-cap', headers: a.headers });
    expect(theirs.json()).toEqual({ cap: null });
    expect(await snapshot(a.userId)).toEqual(before);
  });
});

describe('tenant matrix: sign-out routes', () => {
  it('another tenant signing out, here or everywhere, leaves A signed in and A’s account as it was', async () => {
    const before = await snapshot(a.userId);
    const c = await t.signUp();
    expect((await t.app.inject({ method: 'POST', url: '/api/auth/logout', headers: c.headers })).statusCode).toBe(200);
    const d = await t.signUp();
    expect((await t.app.inject({ method: 'POST', url: '/api/auth/logout-all', headers: d.headers })).statusCode).toBe(200);
    expect(await snapshot(a.userId)).toEqual(before);
    expect(await rowsOf(t.ctx.db, sql`select 1 from revoked_sessions where user_id = ${a.userId}`)).toEqual([]);
    expect((await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: a.headers })).statusCode).toBe(200);
    // Without a session neither route does anything.
    for (const url of ['/api/auth/logout', '/api/auth/logout-all']) {
      expect((await t.app.inject({ method: 'POST', url })).statusCode).toBe(401);
    }
  });
});
