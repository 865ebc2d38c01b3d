import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCallbackData } from '../src/engine/campaigns/callback-data';
import { startCampaignEngine, type CampaignEngine } from '../src/engine/campaigns/index';
import { isOptOut } from '../src/services/blacklist/opt-out';
import { phoneKey } from '../src/lib/phone';
import { getCampaign } from '../src/services/campaigns/campaign-queries';
import { createCampaign } from '../src/services/campaigns/create-campaign';
import { startCampaign } from '../src/services/campaigns/start-campaign';
import { rowsOf } from '../src/db/sql';
import { createTestApp, type TestApp } from './helpers/app';
import { postWebhook, signWebhook } from './helpers/webhook';
import { insertKommoAccount, insertWhatsAppAccount, phoneOf, seedCampaignWorld, type CampaignWorld } from './helpers/campaign-fixtures';
import { APP_SECRET, waitFor } from './helpers/engine-bed';

let t: TestApp;
let engine: CampaignEngine;
let userId: number;
let world: CampaignWorld;

beforeAll(async () => {
  t = await createTestApp({ WHATSAPP_APP_SECRET: APP_SECRET });
  ({ userId } = await t.signUp());
  world = await seedCampaignWorld(t.ctx.db, t.ctx.secrets, userId, {
    number: { phoneNumberId: '1001', wabaId: '2001', token: 'tok', verifyToken: 'mi-token-secreto' },
    contacts: 6,
  });
  // Only the inbox: these tests play Meta's part by hand.
  engine = startCampaignEngine(t.ctx, { runSenders: false, runScheduler: false, inboxPollMs: 20 });
});
afterAll(async () => {
  await engine?.stop();
  await t?.close();
});

const sign = (body: string, secret = APP_SECRET) => signWebhook(body, secret);
const post = (payload: unknown, headers: Record<string, string> = {}) => postWebhook(t.app, APP_SECRET, payload, headers);

const envelope = (value: Record<string, unknown>, field = 'messages', wabaId = '2001') => ({
  object: 'whatsapp_business_account',
  entry: [{ id: wabaId, changes: [{ field, value: { messaging_product: 'whatsapp', metadata: { display_phone_number: '5491100000000', phone_number_id: '1001' }, ...value } }] }],
});

const status = (s: { id: string; status: string; ts: number; opaque?: string; errors?: unknown[] }) => ({
  id: s.id,
  status: s.status,
  timestamp: String(s.ts),
  recipient_id: '5491100000001',
  ...(s.opaque ? { biz_opaque_callback_data: s.opaque } : {}),
  ...(s.errors ? { errors: s.errors } : {}),
});

const signed = (campaignId: number, recipientId: number) =>
  createCallbackData(t.ctx.config.APP_SECRET).sign({ campaignId, recipientId });

const inboxEmpty = () =>
  waitFor(
    () => rowsOf<{ n: number }>(t.ctx.db, sql`select count(*)::int as n from webhook_events`),
    ([r]) => Number(r.n) === 0,
    5_000,
    'inbox drained',
  );

describe('GET /api/webhooks/whatsapp (verification)', () => {
  it('answers the raw challenge when the token is one of the accounts’ verify tokens', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/webhooks/whatsapp?hub.mode=subscribe&hub.verify_token=mi-token-secreto&hub.challenge=1158201444',
    });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('1158201444');
    expect(res.headers['content-type']).toMatch(/text\/plain/);
  });

  it('refuses a wrong, missing or empty token with 403', async () => {
    for (const query of [
      'hub.mode=subscribe&hub.verify_token=otro&hub.challenge=1',
      'hub.mode=subscribe&hub.challenge=1',
      'hub.mode=subscribe&hub.verify_token=&hub.challenge=1',
      'hub.mode=unsubscribe&hub.verify_token=mi-token-secreto&hub.challenge=1',
    ]) {
      const res = await t.app.inject({ method: 'GET', url: `/api/webhooks/whatsapp?${query}` });
      expect(res.statusCode, query).toBe(403);
      expect(res.json().error).toBe('Token de verificación inválido');
    }
  });
});

describe('POST /api/webhooks/whatsapp (signature)', () => {
  it('refuses a missing or wrong signature and stores nothing', async () => {
    const body = JSON.stringify(envelope({ statuses: [] }));
    for (const header of [undefined, 'sha256=00', sign(body, 'otro-secreto'), sign(body + ' ')]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/webhooks/whatsapp',
        payload: body,
        headers: { 'content-type': 'application/json', ...(header ? { 'x-hub-signature-256': header } : {}) },
      });
      expect(res.statusCode).toBe(403);
      expect(res.json().error).toBe('Firma del webhook inválida');
    }
    const [{ n }] = await rowsOf<{ n: number }>(t.ctx.db, sql`select count(*)::int as n from webhook_events`);
    expect(Number(n)).toBe(0);
  });

  it('accepts a correctly signed body fast, and refuses signed garbage with 400', async () => {
    const ok = await post(envelope({ statuses: [] }), { 'content-type': 'application/json; charset=utf-8' });
    expect(ok.statusCode).toBe(200);
    const bad = await post('{"entry": [');
    expect(bad.statusCode).toBe(400);
    await inboxEmpty();
  });

  it('refuses every POST when WHATSAPP_APP_SECRET is not configured', async () => {
    const other = await createTestApp({ WHATSAPP_APP_SECRET: undefined as unknown as string });
    try {
      const body = JSON.stringify(envelope({ statuses: [] }));
      const res = await other.app.inject({
        method: 'POST',
        url: '/api/webhooks/whatsapp',
        payload: body,
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': sign(body) },
      });
      expect(res.statusCode).toBe(403);
      expect(res.json().error).toMatch(/WHATSAPP_APP_SECRET/);
    } finally {
      await other.close();
    }
  });
});

describe('statuses', () => {
  let campaignId: number;
  let ids: number[];

  beforeAll(async () => {
    const c = await createCampaign(t.ctx, userId, {
      name: 'Webhooks',
      kommo_account_id: world.kommoAccountId,
      whatsapp_account_id: world.whatsappAccountId,
      template_id: world.templateId,
    });
    campaignId = c.id;
    await startCampaign(t.ctx, userId, c.id);
    ids = (
      await rowsOf<{ id: number }>(t.ctx.db, sql`select id::int as id from campaign_recipients where campaign_id = ${c.id} order by id`)
    ).map((r) => Number(r.id));
    // In flight, as a sender that died mid-request would leave them; #5 already has its wamid.
    await t.ctx.db.execute(sql`update campaign_recipients set status = 'sending', attempts = 1, claimed_at = now(), claim_owner = 'x'
      where campaign_id = ${c.id}`);
    await t.ctx.db.execute(sql`update campaign_recipients set wamid = 'wamid.E' where id = ${ids[4]}`);
  });

  const rows = () =>
    rowsOf<{ id: number; status: string; wamid: string | null; error_code: number | null; error_message: string | null }>(
      t.ctx.db,
      sql`select id::int as id, status, wamid, error_code, error_message from campaign_recipients
          where campaign_id = ${campaignId} order by id`,
    );

  it('never move backwards, whatever the order, and duplicates change nothing', async () => {
    const op = (i: number) => signed(campaignId, ids[i]);
    // Recipient 0: read arrives first, then sent and delivered, then all of them again.
    const batch1 = [
      status({ id: 'wamid.A', status: 'read', ts: 1_750_000_003, opaque: op(0) }),
      status({ id: 'wamid.B', status: 'delivered', ts: 1_750_000_002, opaque: op(1) }),
    ];
    const batch2 = [
      status({ id: 'wamid.A', status: 'sent', ts: 1_750_000_001, opaque: op(0) }),
      status({ id: 'wamid.A', status: 'delivered', ts: 1_750_000_002, opaque: op(0) }),
      status({ id: 'wamid.B', status: 'sent', ts: 1_750_000_001, opaque: op(1) }),
      status({ id: 'wamid.C', status: 'sent', ts: 1_750_000_001, opaque: op(2) }),
    ];
    for (const b of [batch1, batch2, batch1, batch2]) expect((await post(envelope({ statuses: b }))).statusCode).toBe(200);
    await inboxEmpty();
    const r = await rows();
    expect(r.slice(0, 3).map((x) => [x.status, x.wamid])).toEqual([
      ['read', 'wamid.A'],
      ['delivered', 'wamid.B'],
      ['sent', 'wamid.C'],
    ]);
    const c = await getCampaign(t.ctx.db, userId, campaignId);
    expect(c).toMatchObject({ messages_sent: 3, delivered_count: 2, read_count: 1, pending_count: 3 });
  });

  it('record failures with Meta’s code and message, but never after delivery', async () => {
    const failed = (i: number, id: string) =>
      status({
        id,
        status: 'failed',
        ts: 1_750_000_010,
        opaque: signed(campaignId, ids[i]),
        errors: [{ code: 131026, title: 'Message undeliverable', message: 'Message undeliverable', error_data: { details: 'Not on WhatsApp' } }],
      });
    await post(envelope({ statuses: [failed(3, 'wamid.D'), failed(1, 'wamid.B')] }));
    await inboxEmpty();
    const r = await rows();
    expect(r[3]).toMatchObject({ status: 'failed', error_code: 131026, error_message: 'Message undeliverable: Not on WhatsApp', wamid: 'wamid.D' });
    expect(r[1].status).toBe('delivered');
    expect(await getCampaign(t.ctx.db, userId, campaignId)).toMatchObject({ failed_count: 1, delivered_count: 2 });
  });

  it('are matched by wamid without callback data; foreign ids and unknown messages are ignored', async () => {
    await post(
      envelope({
        statuses: [
          status({ id: 'wamid.E', status: 'delivered', ts: 1_750_000_020 }),
          // Right recipient id, wrong campaign: not ours.
          status({ id: 'wamid.X', status: 'delivered', ts: 1_750_000_020, opaque: signed(campaignId + 999, ids[5]) }),
          status({ id: 'wamid.unknown', status: 'read', ts: 1_750_000_020 }),
        ],
      }),
    );
    await inboxEmpty();
    const r = await rows();
    expect(r[4]).toMatchObject({ status: 'delivered', wamid: 'wamid.E' });
    expect(r[5].status).toBe('sending');
    const c = await getCampaign(t.ctx.db, userId, campaignId);
    const [exact] = await rowsOf<{ sent: number; delivered: number }>(
      t.ctx.db,
      sql`select (count(*) filter (where sent_at is not null))::int as sent,
            (count(*) filter (where delivered_at is not null))::int as delivered
          from campaign_recipients where campaign_id = ${campaignId}`,
    );
    expect([c.messages_sent, c.delivered_count]).toEqual([Number(exact.sent), Number(exact.delivered)]);
  });
});

describe('inbound opt-outs', () => {
  it('recognise the opt-out words alone, in any case and with or without accents', () => {
    for (const w of ['BAJA', 'baja', ' Baja. ', 'stop', 'STOP!', 'Cancelar', 'alto', 'Desuscribir', 'désuscribir', 'UNSUBSCRIBE', 'Báję']) {
      expect(isOptOut(w), w).toBe(w !== 'Báję');
    }
    for (const w of ['hola', 'dar de baja mañana', 'no pares', '']) expect(isOptOut(w), w).toBe(false);
  });

  it('blacklist the sender for the tenant whose verified account owns the number, in each of its Kommo accounts, matching any phone format', async () => {
    // Another user typed the same Meta ids but never proved them to Meta: they receive nothing.
    const other = await t.signUp();
    const otherKommo = await insertKommoAccount(t.ctx.db, t.ctx.secrets, other.userId, 'otra');
    await insertWhatsAppAccount(t.ctx.db, t.ctx.secrets, other.userId, {
      phoneNumberId: '1001',
      wabaId: '2001',
      token: 'x',
      kommoAccountId: otherKommo,
      ownerVerified: false,
    });
    // The owner's second Kommo account, not linked to the number, is covered too.
    const secondKommo = await insertKommoAccount(t.ctx.db, t.ctx.secrets, userId, 'segunda');

    const inbound = (from: string, body: string) =>
      envelope({
        contacts: [{ profile: { name: 'Ana' }, wa_id: from }],
        messages: [{ from, id: `wamid.in.${from}.${body.length}`, timestamp: '1750000100', type: 'text', text: { body } }],
      });
    // WhatsApp ids drop Argentina's mobile 9: 54 11… is the contact stored as +54 9 11….
    await post(inbound('541100000002', 'Baja'));
    await post(inbound('541100000003', 'quiero información'));
    await post(inbound('541100000002', 'STOP'));
    await inboxEmpty();
    const entries = await rowsOf<{ user_id: number; account_id: number; phone_key: string; reason: string }>(
      t.ctx.db,
      sql`select user_id, account_id, phone_key, reason from blacklist order by account_id`,
    );
    expect(entries.map((e) => [Number(e.user_id), Number(e.account_id)])).toEqual([
      [userId, world.kommoAccountId],
      [userId, secondKommo],
    ]);
    expect(entries.every((e) => e.phone_key === phoneKey(phoneOf(2)))).toBe(true);
    expect(entries[0].reason).toMatch(/Baja/);
    const optOuts = await rowsOf<{ user_id: number }>(t.ctx.db, sql`select user_id from opt_outs`);
    expect(optOuts.map((o) => Number(o.user_id))).toEqual([userId]);
  });
});

describe('template status updates', () => {
  it('reach the templates list', async () => {
    await t.ctx.db.execute(sql`update templates set meta_id = '987654' where id = ${world.templateId}`);
    await post(
      envelope(
        {
          event: 'PAUSED',
          message_template_id: 987654,
          message_template_name: 'promo',
          message_template_language: 'es',
          reason: 'LOW_QUALITY',
        },
        'message_template_status_update',
      ),
    );
    await inboxEmpty();
    const [tpl] = await rowsOf<{ status: string }>(t.ctx.db, sql`select status from templates where id = ${world.templateId}`);
    expect(tpl.status).toBe('paused');
  });
});
