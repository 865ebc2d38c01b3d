import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createButtonPayload } from '../src/engine/campaigns/button-payload';
import { startCampaignEngine, type CampaignEngine } from '../src/engine/campaigns/index';
import { phoneKey } from '../src/lib/phone';
import { createCampaign } from '../src/services/campaigns/create-campaign';
import { rowsOf } from '../src/db/sql';
import { createTestApp, type TestApp } from './helpers/app';
import { signWebhook } from './helpers/webhook';
import { insertKommoAccount, insertWhatsAppAccount, seedCampaignWorld, type CampaignWorld } from './helpers/campaign-fixtures';
import { APP_SECRET, waitFor } from './helpers/engine-bed';

/**
 * Opt-out by button: a quick-reply button the operator marked «Baja» blacklists whoever taps it, for the
 * campaign's tenant only, and only with a payload we signed.
 */
let t: TestApp;
let engine: CampaignEngine;
let owner: { userId: number; headers: { authorization: string } };
let world: CampaignWorld;
let campaignId = 0;

const BUTTONS = [
  { type: 'QUICK_REPLY', text: 'Me interesa' },
  { type: 'QUICK_REPLY', text: 'No me interesa' },
  { type: 'URL', text: 'Ver', url: 'https://tienda.example' },
];

beforeAll(async () => {
  t = await createTestApp({ WHATSAPP_APP_SECRET: APP_SECRET });
  owner = await t.signUp();
  world = await seedCampaignWorld(t.ctx.db, t.ctx.secrets, owner.userId, { number: { phoneNumberId: '1001', wabaId: '2001', token: 'tok' }, contacts: 2 });
  await t.ctx.db.execute(sql`delete from template_variable_mappings where template_id = ${world.templateId}`);
  await t.ctx.db.execute(sql`update templates set components = ${JSON.stringify([{ type: 'BODY', text: 'Hola, tenemos novedades.' }, { type: 'BUTTONS', buttons: BUTTONS }])}::jsonb
      where id = ${world.templateId}`);
  campaignId = (await createCampaign(t.ctx, owner.userId, {
    name: 'Novedades', kommo_account_id: world.kommoAccountId, whatsapp_account_id: world.whatsappAccountId, template_id: world.templateId, filters: {},
  })).id;
  engine = startCampaignEngine(t.ctx, { runSenders: false, runScheduler: false, inboxPollMs: 20 });
});
afterAll(async () => {
  await engine?.stop();
  await t?.close();
});

const sign = (body: string) => signWebhook(body, APP_SECRET);
const payloadFor = (index: number, campaign = campaignId) => createButtonPayload(t.ctx.config.APP_SECRET).sign({ campaignId: campaign, index });
const mappings = (body: object) => t.app.inject({ method: 'POST', url: `/api/variables/template/${world.templateId}/mappings`, headers: owner.headers, payload: body });

/** A quick-reply tap as Meta posts it: `type: button` with the payload we sent. */
async function tap(from: string, payload: string, text: string, number = { phoneNumberId: '1001', wabaId: '2001' }) {
  const body = JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [{
      id: number.wabaId,
      changes: [{
        field: 'messages',
        value: {
          messaging_product: 'whatsapp',
          metadata: { display_phone_number: '5491100000000', phone_number_id: number.phoneNumberId },
          contacts: [{ profile: { name: 'Ana' }, wa_id: from }],
          messages: [{ from, id: `wamid.tap.${from}.${payload.length}`, timestamp: '1750000100', type: 'button', context: { from: '5491100000000', id: 'wamid.sent' }, button: { payload, text } }],
        },
      }],
    }],
  });
  const res = await t.app.inject({ method: 'POST', url: '/api/webhooks/whatsapp', payload: body, headers: { 'content-type': 'application/json', 'x-hub-signature-256': sign(body) } });
  expect(res.statusCode).toBe(200);
  await waitFor(() => rowsOf<{ n: number }>(t.ctx.db, sql`select count(*)::int as n from webhook_events`), ([r]) => Number(r.n) === 0, 5_000, 'inbox drained');
}

const blacklisted = async (from: string) =>
  (await rowsOf<{ user_id: number }>(t.ctx.db, sql`select user_id from blacklist where phone_key = ${phoneKey('+' + from)}`)).map((r) => Number(r.user_id));

describe('marking a quick reply «Baja»', () => {
  it('is stored with the mappings and read back', async () => {
    const res = await mappings({ mappings: [], optOutButtons: [1] });
    expect(res.statusCode).toBe(200);
    const read = (await t.app.inject({ method: 'GET', url: `/api/variables/template/${world.templateId}`, headers: owner.headers })).json();
    expect(read.optOutButtons).toEqual([1]);
  });

  it('refuses a button that is not a quick reply, in Spanish, and keeps what was saved', async () => {
    const res = await mappings({ mappings: [], optOutButtons: [2] });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('El botón 3 no es una respuesta rápida: solo esas pueden marcarse como baja');
    const bad = await mappings({ mappings: [], optOutButtons: [42] });
    expect(bad.statusCode).toBe(400);
    const read = (await t.app.inject({ method: 'GET', url: `/api/variables/template/${world.templateId}`, headers: owner.headers })).json();
    expect(read.optOutButtons).toEqual([1]);
  });
});

describe('a tap on a «Baja» quick reply', () => {
  it('blacklists the number for the campaign’s tenant', async () => {
    await tap('5491122220001', payloadFor(1), 'No me interesa');
    expect(await blacklisted('5491122220001')).toEqual([owner.userId]);
    const [entry] = await rowsOf<{ reason: string }>(t.ctx.db, sql`select reason from blacklist where phone_key = ${phoneKey('+5491122220001')}`);
    expect(entry!.reason).toMatch(/No me interesa/);
  });

  it('does nothing for an unmarked button, a forged or foreign payload, or another number', async () => {
    await tap('5491122220002', payloadFor(0), 'Me interesa');
    await tap('5491122220003', payloadFor(1).replace(/.$/, (c) => (c === '0' ? '1' : '0')), 'No me interesa');
    await tap('5491122220004', `masivo-qr:${campaignId}:1:${'0'.repeat(20)}`, 'No me interesa');
    await tap('5491122220005', payloadFor(1, campaignId + 999), 'No me interesa');
    // Another tenant's verified number replays our payload: neither tenant records it.
    const other = await t.signUp();
    const otherKommo = await insertKommoAccount(t.ctx.db, t.ctx.secrets, other.userId, 'otra');
    await insertWhatsAppAccount(t.ctx.db, t.ctx.secrets, other.userId, { phoneNumberId: '1002', wabaId: '2002', token: 'x', kommoAccountId: otherKommo });
    await tap('5491122220006', payloadFor(1), 'No me interesa', { phoneNumberId: '1002', wabaId: '2002' });
    for (const n of ['5491122220002', '5491122220003', '5491122220004', '5491122220005', '5491122220006']) expect(await blacklisted(n), n).toEqual([]);
  });
});
