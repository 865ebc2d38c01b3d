import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCallbackData } from '../src/engine/campaigns/callback-data';
import { startCampaignEngine, type CampaignEngine } from '../src/engine/campaigns/index';
import { readWebhook } from '../src/engine/campaigns/webhook-payload';
import { blacklistedKeys } from '../src/services/blacklist/is-blacklisted';
import { MARKETING_STOP_REASON } from '../src/services/blacklist/origins';
import { createCampaign } from '../src/services/campaigns/create-campaign';
import { startCampaign } from '../src/services/campaigns/start-campaign';
import { rowsOf } from '../src/db/sql';
import { phoneKey } from '../src/lib/phone';
import { createTestApp, type TestApp } from './helpers/app';
import { postWebhook } from './helpers/webhook';
import { digitsOf, insertContact, insertTemplate, phoneOf, seedCampaignWorld, type CampaignWorld } from './helpers/campaign-fixtures';
import { APP_SECRET, waitFor } from './helpers/engine-bed';
import * as meta from './fixtures/meta-webhooks';

/**
 * Every webhook field Meta sends is answered 200, recorded, and
 * applied where it matters (pricing, bans, marketing stops, BSUIDs); odd ones change nothing.
 */
let t: TestApp;
let engine: CampaignEngine;
let userId: number;
let headers: { authorization: string };
let world: CampaignWorld;
/** The lists' key of contact i (lib/phone.ts folds AR's mobile 9). */
const keyOf = (i: number) => phoneKey(phoneOf(i));
const ROUTE = { wabaId: '2001', phoneNumberId: '1001' };
const signed = (campaignId: number, recipientId: number) => createCallbackData(APP_SECRET).sign({ campaignId, recipientId });

beforeAll(async () => {
  t = await createTestApp({ WHATSAPP_APP_SECRET: APP_SECRET, APP_SECRET });
  ({ userId, headers } = await t.signUp());
  world = await seedCampaignWorld(t.ctx.db, t.ctx.secrets, userId, { number: { ...ROUTE, token: 'tok' }, contacts: 6 });
  engine = startCampaignEngine(t.ctx, { runSenders: false, runScheduler: false, inboxPollMs: 20 });
});
afterAll(async () => {
  await engine?.stop();
  await t?.close();
});

async function post(payload: unknown) {
  const res = await postWebhook(t.app, APP_SECRET, payload);
  expect(res.statusCode).toBe(200);
  await waitFor(() => rowsOf<{ n: number }>(t.ctx.db, sql`select count(*)::int as n from webhook_events`), ([r]) => Number(r.n) === 0, 5_000, 'inbox drained');
}
const events = (field: string) =>
  rowsOf<{ waba_id: string; value: Record<string, unknown> }>(t.ctx.db, sql`select waba_id, value from meta_events where field = ${field} order by id`);
const listed = () =>
  rowsOf<{ phone: string; phone_key: string; reason: string | null; origin: string; bsuid: string | null }>(
    t.ctx.db,
    sql`select phone, phone_key, reason, origin, bsuid from blacklist where user_id = ${userId} order by id`,
  );

async function sendingCampaign(name: string) {
  const c = await createCampaign(t.ctx, userId, {
    name, kommo_account_id: world.kommoAccountId, whatsapp_account_id: world.whatsappAccountId, template_id: world.templateId,
  });
  await startCampaign(t.ctx, userId, c.id);
  const ids = (await rowsOf<{ id: number }>(t.ctx.db, sql`select id::int as id from campaign_recipients where campaign_id = ${c.id} order by id`)).map((r) => Number(r.id));
  await t.ctx.db.execute(sql`update campaign_recipients set status = 'sending', attempts = 1, claimed_at = now(), claim_owner = 'x',
      wamid = 'wamid.' || campaign_id || '.' || id where campaign_id = ${c.id}`);
  return { id: c.id, ids };
}
const campaignStatus = async (id: number) =>
  (await rowsOf<{ status: string; pause_reason: string | null }>(t.ctx.db, sql`select status, pause_reason from campaigns where id = ${id}`))[0];

describe('statuses with pricing, errors and BSUIDs', () => {
  it('stores pricing category, type and model per recipient', async () => {
    const c = await sendingCampaign('Precios');
    await post(meta.statusWebhook(ROUTE, { wamid: `wamid.${c.id}.${c.ids[0]}`, status: 'sent', bizOpaque: signed(c.id, c.ids[0]), pricing: { category: 'marketing', type: 'regular' } }));
    await post(meta.statusWebhook(ROUTE, { wamid: `wamid.${c.id}.${c.ids[1]}`, status: 'delivered', pricing: { category: 'marketing_lite', type: 'free_entry_point' } }));
    const rows = await rowsOf<{ status: string; pricing_category: string | null; pricing_type: string | null; pricing_model: string | null }>(
      t.ctx.db,
      sql`select status, pricing_category, pricing_type, pricing_model from campaign_recipients where campaign_id = ${c.id} order by id limit 3`,
    );
    expect(rows[0]).toEqual({ status: 'sent', pricing_category: 'marketing', pricing_type: 'regular', pricing_model: 'PMP' });
    expect(rows[1]).toEqual({ status: 'delivered', pricing_category: 'marketing_lite', pricing_type: 'free_entry_point', pricing_model: 'PMP' });
    expect(rows[2]).toMatchObject({ status: 'sending', pricing_category: null });
  });

  it('matches a status that carries only recipient_user_id, stores the BSUID and learns it for the phone sent to', async () => {
    const c = await sendingCampaign('Usernames');
    await post(meta.statusWebhook(ROUTE, { wamid: `wamid.${c.id}.${c.ids[0]}`, status: 'delivered', recipientId: null, recipientUserId: meta.META_BSUID }));
    await post(meta.statusWebhook(ROUTE, { wamid: `wamid.${c.id}.${c.ids[1]}`, status: 'read', recipientId: digitsOf(2), recipientUserId: 'AR.7777ABCD', pricing: null }));
    const rows = await rowsOf<{ status: string; bsuid: string | null }>(t.ctx.db, sql`select status, bsuid from campaign_recipients where campaign_id = ${c.id} order by id limit 2`);
    expect(rows).toEqual([{ status: 'delivered', bsuid: meta.META_BSUID }, { status: 'read', bsuid: 'AR.7777ABCD' }]);
    const learned = await rowsOf<{ phone_key: string; bsuid: string }>(t.ctx.db, sql`select phone_key, bsuid from contact_bsuids where user_id = ${userId} order by phone_key`);
    // The message was sent to the recipient's phone: both BSUIDs are learned for those phones.
    expect(learned).toEqual([{ phone_key: keyOf(1), bsuid: meta.META_BSUID }, { phone_key: keyOf(2), bsuid: 'AR.7777ABCD' }]);
  });

  it('records value-level errors and statuses of unknown messages, changing nothing', async () => {
    const c = await sendingCampaign('Raros');
    const before = await rowsOf(t.ctx.db, sql`select id, status, wamid from campaign_recipients where campaign_id = ${c.id} order by id`);
    await post(meta.valueErrorsWebhook(ROUTE));
    await post(meta.statusWebhook(ROUTE, { wamid: 'wamid.nobody-knows', status: 'delivered' }));
    expect((await events('messages')).at(-1)?.value).toMatchObject({ errors: [{ code: 131000 }] });
    expect((await events('messages.unmatched_status')).at(-1)?.value).toMatchObject({ id: 'wamid.nobody-knows', status: 'delivered' });
    expect(await rowsOf(t.ctx.db, sql`select id, status, wamid from campaign_recipients where campaign_id = ${c.id} order by id`)).toEqual(before);
  });
});

describe('account_update', () => {
  it('a ban pauses every sending campaign of the WABA with a Spanish reason', async () => {
    const c = await sendingCampaign('Baneo');
    await post(meta.accountBanned(ROUTE));
    expect(await campaignStatus(c.id)).toEqual({ status: 'paused', pause_reason: expect.stringMatching(/^Meta suspendió la cuenta de WhatsApp Business/) });
    expect((await events('account_update')).at(-1)?.value).toMatchObject({ event: 'DISABLED_UPDATE' });
  });

  it('a restriction of business-initiated messages pauses; a violation warning or another WABA does not', async () => {
    const c = await sendingCampaign('Restricción');
    await post(meta.accountViolation(ROUTE));
    await post(meta.accountBanned({ ...ROUTE, wabaId: '9999' }));
    await post(meta.accountRestricted(ROUTE, 'RESTRICTED_ADD_PHONE_NUMBER_ACTION'));
    expect((await campaignStatus(c.id)).status).toBe('sending');
    await post(meta.accountRestricted(ROUTE));
    expect(await campaignStatus(c.id)).toEqual({ status: 'paused', pause_reason: 'Meta restringió los mensajes iniciados por la empresa en esta cuenta de WhatsApp Business hasta el 19/04/2026 13:59 UTC.' });
  });
});

describe('other fields are recorded', () => {
  it('quality, capability, category and template quality updates, and unknown fields, answer 200 and are kept', async () => {
    const templateId = await insertTemplate(t.ctx.db, userId, world.whatsappAccountId, { name: 'seasonal_promotion' });
    await t.ctx.db.execute(sql`update templates set meta_id = '1146211543211871', quality_score = 'GREEN' where id = ${templateId}`);
    await post(meta.phoneQualityUpdate(ROUTE, 'THROUGHPUT_UPGRADE'));
    await post(meta.businessCapabilityUpdate(ROUTE));
    await post(meta.templateCategoryImpending(ROUTE));
    await post(meta.templateCategoryChanged(ROUTE));
    await post(meta.templateQualityUpdate(ROUTE, '1146211543211871', 'RED'));
    await post(meta.templateQualityUpdate(ROUTE, '404404404', 'RED'));
    await post({ object: 'whatsapp_business_account', entry: [{ id: ROUTE.wabaId, changes: [{ field: 'something_new', value: { hello: 1 } }] }] });
    expect((await events('phone_number_quality_update')).at(-1)?.value).toMatchObject({ event: 'THROUGHPUT_UPGRADE', current_limit: 'TIER_10K' });
    expect((await events('business_capability_update')).at(-1)?.value).toMatchObject({ max_daily_conversations_per_business: 2000 });
    expect((await events('template_category_update')).map((e) => e.value.correct_category ?? e.value.new_category)).toEqual(['MARKETING', 'MARKETING']);
    expect(await events('message_template_quality_update')).toHaveLength(2);
    expect(await events('something_new')).toEqual([{ waba_id: ROUTE.wabaId, value: { hello: 1 } }]);
    const [tpl] = await rowsOf<{ quality_score: string }>(t.ctx.db, sql`select quality_score from templates where id = ${templateId}`);
    expect(tpl.quality_score).toBe('RED');
  });

  it('reads every field into a generic change list', () => {
    const contents = readWebhook(meta.userPreferences(ROUTE, { waId: '16505551234', value: 'stop' }));
    expect(contents.changes).toEqual([
      expect.objectContaining({ field: 'user_preferences', wabaId: ROUTE.wabaId, phoneNumberId: ROUTE.phoneNumberId }),
    ]);
    const inbound = readWebhook(meta.inboundText(ROUTE, { from: null, userId: meta.META_BSUID, body: 'Hola' })).inbound;
    expect(inbound).toEqual([expect.objectContaining({ from: '', userId: meta.META_BSUID, text: 'Hola' })]);
    expect(readWebhook(meta.inboundText(ROUTE, { from: null, userId: null, body: 'sin remitente' })).inbound).toEqual([]);
  });
});

describe('marketing opt-out from Meta', () => {
  const person = digitsOf(3);
  const key = keyOf(3);
  it('user_preferences stop blacklists the phone with the reason; resume lifts only that origin', async () => {
    await post(meta.userPreferences(ROUTE, { waId: person, value: 'stop' }));
    expect(await listed()).toContainEqual(expect.objectContaining({ phone: phoneOf(3), reason: MARKETING_STOP_REASON, origin: 'meta_marketing' }));
    expect(await blacklistedKeys(t.ctx.db, userId, world.kommoAccountId, [key])).toEqual(new Set([key]));
    await post(meta.userPreferences(ROUTE, { waId: person, value: 'resume' }));
    expect((await listed()).some((r) => r.phone_key === key)).toBe(false);
    expect(await blacklistedKeys(t.ctx.db, userId, world.kommoAccountId, [key])).toEqual(new Set());

    // A keyword opt-out is not lifted by a Meta resume.
    await post(meta.inboundText(ROUTE, { from: person, body: 'baja' }));
    await post(meta.userPreferences(ROUTE, { waId: person, value: 'resume' }));
    expect(await listed()).toContainEqual(expect.objectContaining({ phone_key: key, origin: 'keyword' }));
    await post(meta.inboundText(ROUTE, { from: person, body: 'Alta' }));
    expect((await listed()).some((r) => r.phone_key === key)).toBe(false);
  });

  it('a stop naming both the phone and the BSUID blacklists both and teaches the pair', async () => {
    await post(meta.userPreferences(ROUTE, { waId: digitsOf(8), userId: 'MX.abc123', value: 'stop' }));
    expect(await listed()).toContainEqual(expect.objectContaining({ phone_key: keyOf(8), bsuid: 'MX.abc123', origin: 'meta_marketing' }));
    expect(await rowsOf(t.ctx.db, sql`select phone_key, bsuid from contact_bsuids where bsuid = 'MX.abc123'`)).toEqual([{ phone_key: keyOf(8), bsuid: 'MX.abc123' }]);
    expect(await blacklistedKeys(t.ctx.db, userId, world.kommoAccountId, ['MX.abc123'])).toEqual(new Set(['MX.abc123']));
    // A resume sent under the BSUID alone lifts it.
    await post(meta.userPreferences(ROUTE, { userId: 'MX.abc123', value: 'resume' }));
    expect((await listed()).some((r) => r.bsuid === 'MX.abc123')).toBe(false);
  });

  it('a failed status with 131050 blacklists the recipient', async () => {
    const c = await sendingCampaign('131050');
    await post(meta.statusWebhook(ROUTE, { wamid: `wamid.${c.id}.${c.ids[4]}`, status: 'failed', pricing: null, errors: [meta.ERROR_131050] }));
    const [row] = await rowsOf<{ status: string; error_code: number }>(t.ctx.db, sql`select status, error_code from campaign_recipients where id = ${c.ids[4]}`);
    expect(row).toEqual({ status: 'failed', error_code: 131050 });
    expect(await listed()).toContainEqual(expect.objectContaining({ phone: phoneOf(5), reason: MARKETING_STOP_REASON, origin: 'meta_marketing' }));
  });

  it('a manual entry is never lifted by ALTA or resume', async () => {
    const res = await t.app.inject({ method: 'POST', url: `/api/blacklist/${world.kommoAccountId}`, headers, payload: { phone: phoneOf(6), reason: 'Pidió por teléfono' } });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ origin: 'manual' });
    await post(meta.userPreferences(ROUTE, { waId: digitsOf(6), value: 'resume' }));
    await post(meta.inboundText(ROUTE, { from: digitsOf(6), body: 'ALTA' }));
    expect(await listed()).toContainEqual(expect.objectContaining({ phone_key: keyOf(6), origin: 'manual' }));
  });
});

describe('odd webhooks', () => {
  it('a BAJA or a stop without any phone or user id, and an unknown template, are answered 200 and change nothing', async () => {
    const before = { list: await listed(), optOuts: await rowsOf(t.ctx.db, sql`select * from opt_outs order by phone_key`), templates: await rowsOf(t.ctx.db, sql`select id, status, quality_score from templates order by id`) };
    await post(meta.inboundText(ROUTE, { from: null, userId: null, body: 'BAJA' }));
    await post(meta.inboundText(ROUTE, { from: null, userId: 'no es un bsuid', body: 'BAJA' }));
    await post(meta.userPreferences(ROUTE, { value: 'stop' }));
    await post(meta.templateQualityUpdate(ROUTE, '777000777', 'RED'));
    await post({ object: 'whatsapp_business_account', entry: [{ id: ROUTE.wabaId, changes: [{ field: 'message_template_status_update', value: { event: 'PAUSED', message_template_id: 555, message_template_name: 'nadie', message_template_language: 'es' } }] }] });
    await post({ object: 'whatsapp_business_account', entry: [{ changes: [{ field: 'account_update', value: { event: 'DISABLED_UPDATE', ban_info: { waba_ban_state: 'DISABLE' } } }] }] });
    expect(await listed()).toEqual(before.list);
    expect(await rowsOf(t.ctx.db, sql`select * from opt_outs order by phone_key`)).toEqual(before.optOuts);
    expect(await rowsOf(t.ctx.db, sql`select id, status, quality_score from templates order by id`)).toEqual(before.templates);
    expect((await events('user_preferences')).length).toBeGreaterThan(0);
  });
});

describe('usernames (BSUID only)', () => {
  it('a BAJA from a username user blacklists the BSUID, which then blocks the phone learned for it', async () => {
    await post(meta.inboundText(ROUTE, { from: null, userId: 'BR.Zz9yX8', body: 'PARAR!' }));
    expect(await listed()).toContainEqual(expect.objectContaining({ phone: 'BR.Zz9yX8', phone_key: 'BR.Zz9yX8', bsuid: 'BR.Zz9yX8', origin: 'keyword' }));
    expect(await blacklistedKeys(t.ctx.db, userId, world.kommoAccountId, [keyOf(4)])).toEqual(new Set());
    // A later message with both tells us the phone of that BSUID: the phone is now blocked too.
    await post(meta.inboundText(ROUTE, { from: digitsOf(4), userId: 'BR.Zz9yX8', body: 'hola de nuevo' }));
    expect(await blacklistedKeys(t.ctx.db, userId, world.kommoAccountId, [keyOf(4), 'BR.Zz9yX8'])).toEqual(new Set([keyOf(4), 'BR.Zz9yX8']));
    // And the opt-out without a Kommo account (per tenant) holds as well.
    expect(await blacklistedKeys(t.ctx.db, userId, null, [keyOf(4)])).toEqual(new Set([keyOf(4)]));
  });

  it('a contact whose phone field holds a BSUID is frozen as sendable by that BSUID', async () => {
    await insertContact(t.ctx.db, userId, world.kommoAccountId, { kommoId: 900, phone: null, phoneRaw: meta.META_BSUID });
    const c = await createCampaign(t.ctx, userId, {
      name: 'Por BSUID', kommo_account_id: world.kommoAccountId, whatsapp_account_id: world.whatsappAccountId, template_id: world.templateId,
    });
    await startCampaign(t.ctx, userId, c.id);
    const rows = await rowsOf<{ phone: string; phone_key: string; status: string; bsuid: string }>(
      t.ctx.db,
      sql`select r.phone, r.phone_key, r.status, r.bsuid from campaign_recipients r join contacts k on k.id = r.contact_id where r.campaign_id = ${c.id} and k.kommo_id = 900`,
    );
    expect(rows).toEqual([{ phone: meta.META_BSUID, phone_key: meta.META_BSUID, status: 'pending', bsuid: meta.META_BSUID }]);
  });
});
