import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/db/sql';
import { insertContact, insertContacts, seedCampaignWorld, type CampaignWorld } from './helpers/campaign-fixtures';
import { createTestApp, type TestApp } from './helpers/app';

/**
 * Scopes: a member limited to one number sees that number, its Kommo account, their campaigns,
 * templates, contacts and blacklist, and nothing else; every other id answers 404 exactly as an
 * id that does not exist. A Lector sees customers' phones masked.
 */
let t: TestApp;
type User = Awaited<ReturnType<TestApp['signUp']>>;
let owner: User;
let scoped: User;
let viewer: User;
let one: CampaignWorld;
let two: CampaignWorld;
const campaigns: Record<'one' | 'two', number> = { one: 0, two: 0 };

beforeAll(async () => {
  t = await createTestApp({ KOMMO_BASE_URL: 'http://127.0.0.1:9/{subdomain}', WHATSAPP_GRAPH_URL: 'http://127.0.0.1:9' });
  owner = await t.signUp();
  one = await seedCampaignWorld(t.ctx.db, t.ctx.secrets, owner.userId, {
    number: { phoneNumberId: '610001', wabaId: '610002', token: 'tok-1', verifyToken: 'v-1' },
    subdomain: 'uno',
  });
  two = await seedCampaignWorld(t.ctx.db, t.ctx.secrets, owner.userId, {
    number: { phoneNumberId: '620001', wabaId: '620002', token: 'tok-2', verifyToken: 'v-2' },
    subdomain: 'dos',
  });
  await insertContacts(t.ctx.db, owner.userId, one.kommoAccountId, 3);
  await insertContact(t.ctx.db, owner.userId, two.kommoAccountId, { kommoId: 9, name: 'Fuera', phone: '+5491155559999' });
  for (const [key, world] of [['one', one], ['two', two]] as const) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/campaigns',
      headers: owner.headers,
      payload: { name: `Campaña ${key}`, kommo_account_id: world.kommoAccountId, whatsapp_account_id: world.whatsappAccountId, template_id: world.templateId },
    });
    expect(res.statusCode, res.body).toBe(201);
    campaigns[key] = res.json().id;
  }
  scoped = await t.addMember(owner.userId, 'campaign_manager', { whatsapp_account_ids: [one.whatsappAccountId] });
  viewer = await t.addMember(owner.userId, 'viewer');
});
afterAll(() => t?.close());

const get = (url: string, headers: { authorization: string }) => t.app.inject({ method: 'GET', url, headers });

describe('a member scoped to one number', () => {
  it('lists only that number, its Kommo account and its campaigns', async () => {
    expect((await get('/api/whatsapp-accounts', scoped.headers)).json().map((a: { id: number }) => a.id)).toEqual([one.whatsappAccountId]);
    expect((await get('/api/kommo/accounts', scoped.headers)).json().map((a: { id: number }) => a.id)).toEqual([one.kommoAccountId]);
    expect((await get('/api/campaigns', scoped.headers)).json().map((c: { id: number }) => c.id)).toEqual([campaigns.one]);
    // The owner still sees both.
    expect((await get('/api/campaigns', owner.headers)).json()).toHaveLength(2);
    // Counts too: the numbers' summary counts the scope's number only.
    expect((await get('/api/whatsapp-accounts/stats', scoped.headers)).json().total_accounts).toBe(1);
    expect((await get('/api/whatsapp-accounts/stats', owner.headers)).json().total_accounts).toBe(2);
  });

  it('answers 404 for the other number’s campaign, account, templates, contacts and blacklist', async () => {
    const outside = [
      [`/api/campaigns/${campaigns.two}`, 'Campaña no encontrada'],
      [`/api/campaigns/${campaigns.two}/stats`, 'Campaña no encontrada'],
      [`/api/whatsapp-accounts/${two.whatsappAccountId}`, 'Cuenta de WhatsApp no encontrada'],
      [`/api/kommo/accounts/${two.kommoAccountId}`, 'Cuenta Kommo no encontrada'],
      [`/api/templates/account/${two.whatsappAccountId}`, 'Cuenta de WhatsApp no encontrada'],
      [`/api/templates/${two.templateId}`, 'Plantilla no encontrada'],
      [`/api/contacts/${two.kommoAccountId}/filtered`, 'Cuenta Kommo no encontrada'],
      [`/api/blacklist/${two.kommoAccountId}`, 'Cuenta Kommo no encontrada'],
    ] as const;
    for (const [url, error] of outside) {
      const res = await get(url, scoped.headers);
      expect(res.statusCode, url).toBe(404);
      expect(res.json().error, url).toBe(error);
    }
    expect((await get(`/api/campaigns/${campaigns.one}`, scoped.headers)).statusCode).toBe(200);
    expect((await get(`/api/templates/${one.templateId}`, scoped.headers)).statusCode).toBe(200);
  });

  it('cannot create a campaign on the other number, and its contact list is its own account’s', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/campaigns',
      headers: scoped.headers,
      payload: { name: 'Fuera', kommo_account_id: two.kommoAccountId, whatsapp_account_id: two.whatsappAccountId, template_id: two.templateId },
    });
    expect(res.statusCode).toBe(404);
    const list = await get('/api/contacts', scoped.headers);
    expect(list.statusCode, list.body).toBe(200);
    expect(JSON.stringify(list.json())).not.toContain('Fuera');
  });

  it('every route naming a scoped id answers 404 with the other number’s ids (generated from the route table)', async () => {
    const outsideIds = { kommo: two.kommoAccountId, whatsapp: two.whatsappAccountId, campaign: campaigns.two, template: two.templateId };
    const wrong: string[] = [];
    for (const route of t.app.routePermissions) {
      const params = route.scope?.params;
      // The public API takes keys, not sessions: public-api.test.ts checks a key limited to a number.
      if (!params || route.url.startsWith('/api/v1/')) continue;
      const url = route.url.replace(/:([A-Za-z]+)/g, (_m, name: string) =>
        name in params ? String(outsideIds[params[name]!]) : name === 'fieldName' ? 'Ciudad' : '1',
      );
      const res = await t.app.inject({ method: route.method as 'GET', url, headers: scoped.headers, payload: route.method === 'GET' || route.method === 'DELETE' ? undefined : {} });
      // 403: the role lacks the permission anyway; 400: a body refused before any lookup.
      if (![404, 403, 400].includes(res.statusCode)) wrong.push(`${route.method} ${route.url} → ${res.statusCode}`);
    }
    expect(wrong).toEqual([]);
  });

  it('no list answer names the other number, its Kommo account, campaign or template (generated from the route table)', async () => {
    const leaks: string[] = [];
    const foreign = [
      `"whatsapp_account_id":${two.whatsappAccountId},`,
      `"kommo_account_id":${two.kommoAccountId},`,
      "Campaña two",
      `"template_id":${two.templateId},`,
    ];
    for (const route of t.app.routePermissions) {
      if (route.method !== 'GET' || route.url.includes(':') || route.url.endsWith('.csv')) continue;
      const res = await get(route.url, scoped.headers);
      if (res.statusCode !== 200) continue;
      for (const needle of foreign) if (res.body.replace(/\s/g, '').includes(needle)) leaks.push(`${route.url}: ${needle}`);
    }
    expect(leaks).toEqual([]);
  });

  it('every route with an id in its path declares which kind it is', () => {
    const undeclared = t.app.routePermissions
      .filter((r) => /:(id|accountId|templateId)\b/.test(r.url) && !r.url.startsWith('/api/organization'))
      .filter((r) => !['connections.manage', 'organization.manage', 'organization.own', 'member', 'api_keys.manage', 'webhooks.manage'].includes(r.permission))
      .filter((r) => !r.scope?.params || Object.keys(r.scope.params).length === 0)
      .map((r) => `${r.method} ${r.url}`);
    expect(undeclared).toEqual([]);
  });
});

describe('rows keep who created them', () => {
  it('a blacklist entry and a campaign made by a member name that member; the organisation stays the owner’s', async () => {
    const entry = await t.app.inject({ method: 'POST', url: `/api/blacklist/${one.kommoAccountId}`, headers: scoped.headers, payload: { phone: '+5491155551234', reason: 'baja' } });
    expect(entry.statusCode, entry.body).toBe(201);
    const campaign = await t.app.inject({
      method: 'POST',
      url: '/api/campaigns',
      headers: scoped.headers,
      payload: { name: 'Del gestor', kommo_account_id: one.kommoAccountId, whatsapp_account_id: one.whatsappAccountId, template_id: one.templateId },
    });
    expect(campaign.statusCode, campaign.body).toBe(201);
    const rows = await rowsOf<{ t: string; user_id: number; created_by: number | null }>(
      t.ctx.db,
      sql`select 'blacklist' as t, user_id, created_by from blacklist where id = ${entry.json().id}
          union all select 'campaign', user_id, created_by from campaigns where id = ${campaign.json().id}`,
    );
    expect(rows).toEqual([
      { t: 'blacklist', user_id: owner.userId, created_by: scoped.userId },
      { t: 'campaign', user_id: owner.userId, created_by: scoped.userId },
    ]);
  });
});

describe('a Lector', () => {
  it('sees customers’ phones masked; an Editor sees them whole', async () => {
    const masked = await get(`/api/contacts/${one.kommoAccountId}/filtered`, viewer.headers);
    expect(masked.statusCode, masked.body).toBe(200);
    const body = JSON.stringify(masked.json());
    expect(body).toContain('+54 9 11 •••• 0001');
    expect(body).not.toContain('+5491100000001');
    const editor = await t.addMember(owner.userId, 'editor');
    expect(JSON.stringify((await get(`/api/contacts/${one.kommoAccountId}/filtered`, editor.headers)).json())).toContain('+5491100000001');
  });
});
