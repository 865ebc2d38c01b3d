// Security review M1, M2, M10 and the shared-client token finding: which tenant a Meta number,
// an opt-out and a stored token belong to, and what happens when they cannot be trusted.
import { startWhatsAppSim, type WhatsAppSim } from '@masivo/simulators/whatsapp';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCampaignEngine, type CampaignEngine } from '../src/engine/campaigns/index';
import { createGraphClient } from '../src/integrations/whatsapp/graph-client';
import { GraphApiError } from '../src/integrations/whatsapp/graph-errors';
import { phoneKey } from '../src/lib/phone';
import { createSecretBox } from '../src/lib/secret-box';
import { blacklistedKeys } from '../src/services/blacklist/is-blacklisted';
import { createTestApp, type TestApp } from './helpers/app';
import { postWebhook } from './helpers/webhook';
import { insertKommoAccount, insertTemplate, insertWhatsAppAccount } from './helpers/campaign-fixtures';
import { rowsOf } from '../src/db/sql';

const WEBHOOK_SECRET = 'tenant-ownership-webhook-secret';
/** Tenant B's real number, and tenant A's own (another WABA, another token). */
const B_NUMBER = { phoneNumberId: '7001', wabaId: '8001', token: 'tok-b', displayPhoneNumber: '+54 9 11 7000-0001' };
const A_NUMBER = { phoneNumberId: '7101', wabaId: '8101', token: 'tok-a', displayPhoneNumber: '+54 9 11 7100-0001' };

let sim: WhatsAppSim;
let t: TestApp;
let engine: CampaignEngine;

beforeAll(async () => {
  sim = await startWhatsAppSim({ numbers: [B_NUMBER, A_NUMBER] });
  t = await createTestApp({ WHATSAPP_GRAPH_URL: sim.graphUrl, WHATSAPP_APP_SECRET: WEBHOOK_SECRET });
  engine = startCampaignEngine(t.ctx, { runSenders: false, runScheduler: false, inboxPollMs: 20 });
});
afterAll(async () => {
  await engine?.stop();
  await t?.close();
  await sim?.close();
});

const api = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, headers: Record<string, string>, payload?: unknown) =>
  t.app.inject({ method, url: `/api${url}`, headers, ...(payload !== undefined ? { payload: payload as object } : {}) });

const account = (n: typeof B_NUMBER, extra: Record<string, unknown> = {}) => ({
  name: 'Cuenta',
  phone_number: '+5491100000000',
  phone_number_id: n.phoneNumberId,
  business_account_id: n.wabaId,
  access_token: n.token,
  ...extra,
});

const postSigned = (payload: unknown) => postWebhook(t.app, WEBHOOK_SECRET, payload);

const inbound = (phoneNumberId: string, wabaId: string, from: string, text: string) => ({
  object: 'whatsapp_business_account',
  entry: [
    {
      id: wabaId,
      changes: [
        {
          field: 'messages',
          value: {
            messaging_product: 'whatsapp',
            metadata: { display_phone_number: '5491100000000', phone_number_id: phoneNumberId },
            contacts: [{ profile: { name: 'Cliente' }, wa_id: from }],
            messages: [{ from, id: `wamid.${from}.${Date.now()}`, timestamp: String(Math.floor(Date.now() / 1000)), type: 'text', text: { body: text } }],
          },
        },
      ],
    },
  ],
});

async function until(check: () => Promise<boolean>, ms = 5_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('condition not met in time');
}

const optOutsOf = (userId: number) =>
  rowsOf<{ phone_key: string }>(t.ctx.db, sql`select phone_key from opt_outs where user_id = ${userId}`);
const blacklistOf = (accountId: number) =>
  rowsOf<{ phone_key: string }>(t.ctx.db, sql`select phone_key from blacklist where account_id = ${accountId}`);

describe('M1: a Meta number belongs to the tenant who proves it', () => {
  it('refuses another tenant’s number, whatever ids are typed, in Spanish', async () => {
    const a = await t.signUp();
    // A's own token cannot list B's WABA.
    const foreignWaba = await api('POST', '/whatsapp-accounts', a.headers, account(B_NUMBER, { access_token: A_NUMBER.token }));
    expect(foreignWaba.statusCode).toBe(400);
    expect(foreignWaba.json().error).toMatch(/^No se pudo verificar el número con Meta/);
    // A's own WABA does not hold B's number.
    const foreignNumber = await api('POST', '/whatsapp-accounts', a.headers, account({ ...A_NUMBER, phoneNumberId: B_NUMBER.phoneNumberId }));
    expect(foreignNumber.statusCode).toBe(400);
    expect(foreignNumber.json().error).toMatch(/no confirma que el ID del número/);
    const rows = await rowsOf(t.ctx.db, sql`select id from whatsapp_accounts where user_id = ${a.userId}`);
    expect(rows).toHaveLength(0);
  });

  it('keeps one verified account per Meta number in the whole console', async () => {
    const b = await t.signUp();
    const other = await t.signUp();
    const first = await api('POST', '/whatsapp-accounts', b.headers, account(B_NUMBER));
    expect(first.statusCode).toBe(201);
    // Someone else with a token for the same WABA still cannot register the number twice.
    const second = await api('POST', '/whatsapp-accounts', other.headers, account(B_NUMBER));
    expect(second.statusCode).toBe(409);
    expect(second.json().error).toMatch(/ya está conectado en otra cuenta/);
    await api('DELETE', `/whatsapp-accounts/${first.json().id}`, b.headers);
  });

  it('routes opt-outs and template events only to the verified account of that WABA', async () => {
    const victim = await t.signUp();
    const attacker = await t.signUp();
    const victimKommo = await insertKommoAccount(t.ctx.db, t.ctx.secrets, victim.userId, 'victima');
    const attackerKommo = await insertKommoAccount(t.ctx.db, t.ctx.secrets, attacker.userId, 'atacante');
    const victimWa = await insertWhatsAppAccount(t.ctx.db, t.ctx.secrets, victim.userId, { ...B_NUMBER, phoneNumberId: '7201', kommoAccountId: victimKommo });
    // The attacker typed the victim's ids; the row exists (as before this fix) but was never verified.
    const attackerWa = await insertWhatsAppAccount(t.ctx.db, t.ctx.secrets, attacker.userId, {
      ...B_NUMBER,
      phoneNumberId: '7201',
      kommoAccountId: attackerKommo,
      ownerVerified: false,
    });
    await insertTemplate(t.ctx.db, victim.userId, victimWa);
    await insertTemplate(t.ctx.db, attacker.userId, attackerWa);

    expect((await postSigned(inbound('7201', B_NUMBER.wabaId, '5491155550123', 'BAJA'))).statusCode).toBe(200);
    // A verified account but another WABA in the envelope: not routed either.
    expect((await postSigned(inbound('7201', '9999', '5491155550999', 'STOP'))).statusCode).toBe(200);
    const key = phoneKey('+5491155550123');
    await until(async () => (await optOutsOf(victim.userId)).length > 0);
    await until(async () => (await rowsOf(t.ctx.db, sql`select id from webhook_events`)).length === 0);
    expect((await optOutsOf(victim.userId)).map((r) => r.phone_key)).toEqual([key]);
    expect(await blacklistOf(victimKommo)).toEqual([{ phone_key: key }]);
    expect(await optOutsOf(attacker.userId)).toEqual([]);
    expect(await blacklistOf(attackerKommo)).toEqual([]);

    const templateEvent = {
      object: 'whatsapp_business_account',
      entry: [
        {
          id: B_NUMBER.wabaId,
          changes: [
            {
              field: 'message_template_status_update',
              value: { event: 'REJECTED', message_template_id: 555, message_template_name: 'promo', message_template_language: 'es', reason: 'SCAM' },
            },
          ],
        },
      ],
    };
    expect((await postSigned(templateEvent)).statusCode).toBe(200);
    const statusOf = async (waId: number) =>
      (await rowsOf<{ status: string }>(t.ctx.db, sql`select status from templates where whatsapp_account_id = ${waId}`))[0]?.status;
    await until(async () => (await statusOf(victimWa)) === 'rejected');
    expect(await statusOf(attackerWa)).toBe('approved');
  });

  it('verifies an account saved before the check on its next "Probar", and routes to it from then on', async () => {
    const u = await t.signUp();
    const legacy = await insertWhatsAppAccount(t.ctx.db, t.ctx.secrets, u.userId, { ...A_NUMBER, ownerVerified: false });
    await postSigned(inbound(A_NUMBER.phoneNumberId, A_NUMBER.wabaId, '5491177770001', 'BAJA'));
    await until(async () => (await rowsOf(t.ctx.db, sql`select id from webhook_events`)).length === 0);
    expect(await optOutsOf(u.userId)).toEqual([]);
    const tested = await api('POST', `/whatsapp-accounts/${legacy}/test`, u.headers);
    expect(tested.json()).toMatchObject({ success: true });
    await postSigned(inbound(A_NUMBER.phoneNumberId, A_NUMBER.wabaId, '5491177770001', 'BAJA'));
    await until(async () => (await optOutsOf(u.userId)).length > 0);
    await api('DELETE', `/whatsapp-accounts/${legacy}`, u.headers);
  });
});

describe('M2: no opt-out is ever lost', () => {
  it('holds for every campaign of the tenant, with or without a linked Kommo account', async () => {
    const u = await t.signUp();
    const k1 = await insertKommoAccount(t.ctx.db, t.ctx.secrets, u.userId, 'uno');
    const k2 = await insertKommoAccount(t.ctx.db, t.ctx.secrets, u.userId, 'dos');
    // A number linked to no Kommo account: before the fix its opt-outs were dropped.
    await insertWhatsAppAccount(t.ctx.db, t.ctx.secrets, u.userId, { ...A_NUMBER, phoneNumberId: '7301', kommoAccountId: null });
    await postSigned(inbound('7301', A_NUMBER.wabaId, '5491166660001', 'Baja'));
    const key = phoneKey('+5491166660001');
    await until(async () => (await optOutsOf(u.userId)).length > 0);

    // The sender's check, for a campaign on either Kommo account or on none.
    for (const accountId of [k1, k2, null]) {
      expect(await blacklistedKeys(t.ctx.db, u.userId, accountId, [key, phoneKey('+5491166660002')])).toEqual(new Set([key]));
    }
    // Shown in every Kommo account's blacklist, and by the check route.
    expect(await blacklistOf(k1)).toEqual([{ phone_key: key }]);
    expect(await blacklistOf(k2)).toEqual([{ phone_key: key }]);
    const check = await api('GET', `/blacklist/${k1}/check?phone=%2B5491166660001`, u.headers);
    expect(check.json().blacklisted).toBe(true);

    // Another tenant's sender never sees it.
    const stranger = await t.signUp();
    expect(await blacklistedKeys(t.ctx.db, stranger.userId, null, [key])).toEqual(new Set());

    // The operator lifts it on purpose: it goes from the blacklist and from the opt-outs.
    const [entry] = await rowsOf<{ id: number }>(t.ctx.db, sql`select id from blacklist where account_id = ${k1}`);
    expect((await api('DELETE', `/blacklist/${k1}/${entry!.id}`, u.headers)).statusCode).toBe(200);
    expect(await blacklistedKeys(t.ctx.db, u.userId, k1, [key])).toEqual(new Set());
    // The other account's own blacklist entry still holds for its campaigns.
    expect(await blacklistedKeys(t.ctx.db, u.userId, k2, [key])).toEqual(new Set([key]));
  });

  it('refuses to delete an account used by a campaign that is not finished (409), and allows it after', async () => {
    const u = await t.signUp();
    const kommo = await insertKommoAccount(t.ctx.db, t.ctx.secrets, u.userId, 'borrar');
    const wa = await insertWhatsAppAccount(t.ctx.db, t.ctx.secrets, u.userId, { ...A_NUMBER, phoneNumberId: '7401', kommoAccountId: kommo });
    const template = await insertTemplate(t.ctx.db, u.userId, wa);
    const [campaign] = await rowsOf<{ id: number }>(t.ctx.db, sql`
      insert into campaigns (user_id, name, status, kommo_account_id, whatsapp_account_id, template_id)
      values (${u.userId}, 'c', 'paused', ${kommo}, ${wa}, ${template}) returning id`);
    for (const url of [`/kommo/accounts/${kommo}`, `/whatsapp-accounts/${wa}`]) {
      const res = await api('DELETE', url, u.headers);
      expect(res.statusCode).toBe(409);
      expect(res.json().error).toMatch(/campaña sin terminar/);
    }
    expect(await blacklistOf(kommo)).toEqual([]);
    await rowsOf(t.ctx.db, sql`update campaigns set status = 'completed' where id = ${campaign!.id}`);
    expect((await api('DELETE', `/whatsapp-accounts/${wa}`, u.headers)).statusCode).toBe(200);
    expect((await api('DELETE', `/kommo/accounts/${kommo}`, u.headers)).statusCode).toBeLessThan(300);
  });
});

describe('M10: a stored token that no longer decrypts', () => {
  it('asks for the token again in Spanish instead of a 500, and accepts a new one', async () => {
    const u = await t.signUp();
    const created = await api('POST', '/whatsapp-accounts', u.headers, account(A_NUMBER));
    expect(created.statusCode).toBe(201);
    const id = created.json().id as number;
    // Sealed under another APP_SECRET, as after the secret changed.
    const foreign = createSecretBox('otro-secreto-otro-secreto-otro-secreto').seal(A_NUMBER.token);
    await rowsOf(t.ctx.db, sql`update whatsapp_accounts set access_token_enc = ${foreign} where id = ${id}`);

    const tested = await api('POST', `/whatsapp-accounts/${id}/test`, u.headers);
    expect(tested.statusCode).toBe(200);
    expect(tested.json()).toMatchObject({ success: false });
    expect(tested.json().error).toMatch(/vuelve a ingresarlo/);
    for (const [method, url, body] of [
      ['POST', `/whatsapp-accounts/${id}/refresh`, undefined],
      ['POST', '/templates/sync', { whatsapp_account_id: id }],
    ] as const) {
      const res = await api(method, url, u.headers, body);
      expect(res.statusCode, url).toBe(409);
      expect(res.json().error).toMatch(/vuelve a ingresarlo/);
    }
    const renamed = await api('PUT', `/whatsapp-accounts/${id}`, u.headers, { name: 'Sin token nuevo' });
    expect(renamed.statusCode).toBe(200);
    const fixed = await api('PUT', `/whatsapp-accounts/${id}`, u.headers, { name: 'Arreglada', access_token: A_NUMBER.token });
    expect(fixed.statusCode).toBe(200);
    expect((await api('POST', `/whatsapp-accounts/${id}/test`, u.headers)).json().success).toBe(true);
    await api('DELETE', `/whatsapp-accounts/${id}`, u.headers);
  });
});

describe('tokens outside visible ASCII', () => {
  it('are refused when saved, in Spanish', async () => {
    const u = await t.signUp();
    const wa = await api('POST', '/whatsapp-accounts', u.headers, account(A_NUMBER, { access_token: 'abc€def' }));
    expect(wa.statusCode).toBe(400);
    expect(wa.json().error).toMatch(/ASCII/);
    const kommo = await api('POST', '/kommo/accounts', u.headers, { subdomain: 'euro', access_token: 'tok€n', phone_field_id: 1 });
    expect(kommo.statusCode).toBe(400);
    expect(kommo.json().error).toMatch(/ASCII/);
  });

  it('never break the Graph client other tenants share', async () => {
    const graph = createGraphClient(sim.graphUrl);
    const calls = Array.from({ length: 40 }, () =>
      graph.call({ method: 'GET', path: `/${A_NUMBER.phoneNumberId}`, token: 'tok€' }).then(
        () => null,
        (err: unknown) => err,
      ),
    );
    for (const err of await Promise.all(calls)) {
      expect(err).toBeInstanceOf(GraphApiError);
      expect((err as GraphApiError).message).toMatch(/vuelve a ingresarlo/);
    }
    const ok = await graph.call<{ id: string }>({ method: 'GET', path: `/${A_NUMBER.phoneNumberId}`, token: A_NUMBER.token, timeoutMs: 3_000 });
    expect(ok.id).toBe(A_NUMBER.phoneNumberId);
  });
});
