import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blacklist, campaigns, contacts, kommoAccounts, templates, whatsappAccounts } from '../src/db/schema/index';
import { createTestApp, type TestApp } from './helpers/app';

/**
 * Regressions found in the pre-release security review: authentication decided on the raw
 * URL, ids beyond PostgreSQL's integer range, NUL characters reaching the database, and
 * cross-user references.
 */

let t: TestApp;
type User = Awaited<ReturnType<TestApp['signUp']>>;
let owner: User;
let other: User;
let mine: Awaited<ReturnType<typeof seed>>;
let theirs: Awaited<ReturnType<typeof seed>>;

async function seed(userId: number, subdomain: string) {
  const { db, secrets } = t.ctx;
  const [kommo] = await db
    .insert(kommoAccounts)
    .values({ userId, subdomain, accessTokenEnc: secrets.seal('kommo-token'), phoneFieldId: 1 })
    .returning();
  const [contact] = await db
    .insert(contacts)
    .values({ userId, accountId: kommo!.id, kommoId: 1, name: 'Ana', firstName: 'Ana', phone: '+5491155550001', phoneRaw: '+5491155550001' })
    .returning();
  const [whatsapp] = await db
    .insert(whatsappAccounts)
    .values({ userId, name: 'Ventas', phoneNumber: '+5491100000000', phoneNumberId: `pn-${subdomain}`, accessTokenEnc: secrets.seal('wa-token'), businessAccountId: '1' })
    .returning();
  const [template] = await db
    .insert(templates)
    .values({ userId, whatsappAccountId: whatsapp!.id, name: 'promo', language: 'es', category: 'marketing', status: 'approved', components: [{ type: 'BODY', text: 'Hola' }] })
    .returning();
  return { kommo: kommo!, contact: contact!, whatsapp: whatsapp!, template: template! };
}

beforeAll(async () => {
  t = await createTestApp();
  owner = await t.signUp();
  other = await t.signUp();
  mine = await seed(owner.userId, 'propia');
  theirs = await seed(other.userId, 'ajena');
});
afterAll(() => t.close());

const send = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown, headers: Record<string, string> = owner.headers) =>
  t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });

describe('authentication', () => {
  it('applies to an /api route reached through a percent-encoded path', async () => {
    for (const url of ['/%61pi/campaigns', '/%61pi/kommo/accounts', '/api/%63ampaigns']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(401);
    }
    const created = await t.app.inject({
      method: 'POST',
      url: '/%61pi/kommo/accounts',
      payload: { subdomain: 'intrusa', access_token: 'x', phone_field_id: 1 },
    });
    expect(created.statusCode).toBe(401);
  });

  it('still lets public routes through', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api/health' })).statusCode).toBe(200);
  });
});

describe('ids beyond the integer range', () => {
  it('are a 400 on campaign creation, and nothing is created', async () => {
    const base = { name: 'Promo', kommo_account_id: mine.kommo.id, whatsapp_account_id: mine.whatsapp.id, template_id: mine.template.id };
    for (const field of ['kommo_account_id', 'whatsapp_account_id', 'template_id']) {
      const res = await send('POST', '/api/campaigns', { ...base, [field]: 99_999_999_999_999 });
      expect(res.statusCode, field).toBe(400);
      expect(res.json().error).toMatch(new RegExp(`^${field}: `));
    }
    expect(await t.ctx.db.select().from(campaigns)).toHaveLength(0);
  });
});

describe('NUL characters', () => {
  it('are a 400, never a 500, in paths, query strings, JSON-in-query and bodies', async () => {
    const k = mine.kommo.id;
    const nul = '\u0000';
    const cases: [ 'GET' | 'POST', string, unknown?][] = [
      ['GET', `/api/contacts/${k}/filtered?searchQuery=%00`],
      ['GET', `/api/contacts/${k}/filtered?tags=${encodeURIComponent(JSON.stringify(['vip' + nul]))}`],
      ['GET', `/api/contacts/${k}/count?customFieldFilters=${encodeURIComponent(JSON.stringify({ ['c' + nul]: { mode: 'exists' } }))}`],
      ['GET', `/api/contacts/${k}/custom-fields/a%00b/values`],
      ['GET', `/api/blacklist/${k}/search?query=%00`],
      ['POST', `/api/blacklist/${k}`, { phone: '+5491112345678', reason: 'motivo' + nul }],
      ['POST', '/api/whatsapp-accounts', { name: 'x' + nul, phone_number: '+5491112345678', phone_number_id: '123', access_token: 't', business_account_id: '456' }],
      ['POST', '/api/templates/create', { whatsapp_account_id: mine.whatsapp.id, name: 'nueva', components: [{ type: 'BODY', text: 'Hola' + nul }] }],
      ['POST', '/api/auth/login', { email: `a${nul}@example.com`, password: 'secreto123' }],
    ];
    for (const [method, url, payload] of cases) {
      const res = await send(method, url, payload);
      expect(res.statusCode, url).toBe(400);
      expect(res.json().error).toBe('La petición contiene caracteres no permitidos');
    }
    expect(await t.ctx.db.select().from(blacklist)).toHaveLength(0);
  });
});

describe('references to another user’s rows answer 404 and change nothing', () => {
  it('a foreign Kommo account on a new WhatsApp account', async () => {
    const res = await send('POST', '/api/whatsapp-accounts', {
      name: 'Nueva',
      phone_number: '+5491112345678',
      phone_number_id: '999',
      access_token: 'token',
      business_account_id: '1',
      kommo_account_id: theirs.kommo.id,
    });
    expect(res.statusCode).toBe(404);
    expect(res.body).not.toContain('token');
  });

  it('a foreign template with my WhatsApp account, and my template with a foreign account', async () => {
    const a = await send('POST', '/api/campaigns', { name: 'X', kommo_account_id: mine.kommo.id, whatsapp_account_id: mine.whatsapp.id, template_id: theirs.template.id });
    const b = await send('POST', '/api/campaigns', { name: 'X', kommo_account_id: mine.kommo.id, whatsapp_account_id: theirs.whatsapp.id, template_id: mine.template.id });
    const c = await send('POST', '/api/campaigns', { name: 'X', kommo_account_id: theirs.kommo.id, whatsapp_account_id: mine.whatsapp.id, template_id: mine.template.id });
    expect([a.statusCode, b.statusCode, c.statusCode]).toEqual([404, 404, 404]);
    expect(await t.ctx.db.select().from(campaigns)).toHaveLength(0);
  });

  it('a foreign contact in the variables test, and a foreign blacklist account', async () => {
    const test = await send('POST', `/api/variables/template/${mine.template.id}/test`, { contactId: theirs.contact.id });
    expect(test.statusCode).toBe(404);
    expect(test.body).not.toContain('Ana');
    const add = await send('POST', `/api/blacklist/${theirs.kommo.id}`, { phone: '+5491112345678' });
    expect(add.statusCode).toBe(404);
    expect(await t.ctx.db.select().from(blacklist)).toHaveLength(0);
  });
});
