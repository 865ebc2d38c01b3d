import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveEngineOptions } from '../src/engine/campaigns/options';
import { WebhookInbox } from '../src/engine/campaigns/webhook-inbox';
import { createButtonPayload } from '../src/engine/campaigns/button-payload';
import { phoneKey } from '../src/lib/phone';
import { rowsOf } from '../src/db/sql';
import { createCampaign } from '../src/services/campaigns/create-campaign';
import { createRateCardService } from '../src/services/pricing/rate-card-service';
import { createTestApp, type TestApp } from './helpers/app';
import { postWebhook } from './helpers/webhook';
import { seedCampaignWorld, type CampaignWorld } from './helpers/campaign-fixtures';
import { APP_SECRET } from './helpers/engine-bed';
import {
  buttonMessage,
  buttonReplyMessage,
  CBP,
  imageMessage,
  listReplyMessage,
  locationMessage,
  PMP,
  pricedStatus,
  reactionMessage,
  textMessage,
  usernameTextMessage,
} from './fixtures/meta-inbound';

/**
 * Replies: every inbound message is kept once, attributed to the campaign recipient it
 * answers (context.id, else the last campaign message to that person within 72 h), counted per
 * campaign and per quick-reply button; and the real cost of the delivered messages from Meta's
 * `pricing`, priced with the tenant's rate card.
 */
let t: TestApp;
let inbox: WebhookInbox;
let a: { userId: number; headers: { authorization: string } };
let b: { userId: number; headers: { authorization: string } };
let worldA: CampaignWorld;
let worldB: CampaignWorld;
const NUMBER_A = { phoneNumberId: '3001', wabaId: '4001' };
const NUMBER_B = { phoneNumberId: '3002', wabaId: '4002' };
const HOUR = 3_600_000;
const T0 = new Date(Math.floor((Date.now() - 10 * 24 * HOUR) / 1000) * 1000);
const at = (hours: number) => new Date(T0.getTime() + hours * HOUR);
let seq = 0;

beforeAll(async () => {
  t = await createTestApp({ WHATSAPP_APP_SECRET: APP_SECRET });
  a = await t.signUp();
  b = await t.signUp();
  worldA = await seedCampaignWorld(t.ctx.db, t.ctx.secrets, a.userId, { number: { ...NUMBER_A, token: 'tok-a' } });
  worldB = await seedCampaignWorld(t.ctx.db, t.ctx.secrets, b.userId, { number: { ...NUMBER_B, token: 'tok-b' } });
  inbox = new WebhookInbox(t.ctx, resolveEngineOptions({}), () => undefined);
});
afterAll(async () => {
  await t?.close();
});

/** A started campaign of the tenant whose recipients Meta already accepted (one row per spec). */
async function sentCampaign(
  user: { userId: number },
  world: CampaignWorld,
  recipients: Array<{ digits?: string; bsuid?: string; sentHours: number; status?: string; country?: string | null }>,
) {
  const id = (
    await createCampaign(t.ctx, user.userId, {
      name: `Campaña ${++seq}`,
      kommo_account_id: world.kommoAccountId,
      whatsapp_account_id: world.whatsappAccountId,
      template_id: world.templateId,
      filters: {},
    })
  ).id;
  const rows: Array<{ id: number; wamid: string; digits: string | null }> = [];
  for (const r of recipients) {
    const wamid = `wamid.C${id}R${rows.length}X${seq}`;
    const phone = r.digits ? `+${r.digits}` : (r.bsuid ?? null);
    const key = r.digits ? phoneKey(`+${r.digits}`) : (r.bsuid ?? null);
    const [row] = await rowsOf<{ id: number }>(
      t.ctx.db,
      sql`insert into campaign_recipients (campaign_id, user_id, phone, phone_key, bsuid, status, wamid, sent_at, country)
          values (${id}, ${user.userId}, ${phone}, ${key}, ${r.bsuid ?? null}, ${r.status ?? 'sent'}, ${wamid},
                  ${at(r.sentHours).toISOString()}::timestamptz, ${r.country === undefined ? 'AR' : r.country})
          returning id`,
    );
    rows.push({ id: Number(row!.id), wamid, digits: r.digits ?? null });
  }
  await t.ctx.db.execute(sql`update campaigns set status = 'completed', started_at = ${at(0).toISOString()}::timestamptz,
      audience_frozen_at = ${at(0).toISOString()}::timestamptz, total_recipients = ${recipients.length},
      messages_sent = ${recipients.length} where id = ${id}`);
  return { id, rows };
}

/** Meta posts the webhook; the inbox applies it. */
async function deliver(payload: unknown) {
  const res = await postWebhook(t.app, APP_SECRET, payload);
  expect(res.statusCode).toBe(200);
  while ((await inbox.drainOnce()) > 0) {
    /* until the inbox is empty */
  }
}

const recipient = async (id: number) =>
  (
    await rowsOf<{ replied_at: Date | string | null; reply_count: number; last_reply: string | null; button_tapped: string | null }>(
      t.ctx.db,
      sql`select replied_at, reply_count, last_reply, button_tapped from campaign_recipients where id = ${id}`,
    )
  )[0]!;
const repliedCount = async (campaignId: number) =>
  Number((await rowsOf<{ n: number }>(t.ctx.db, sql`select replied_count as n from campaigns where id = ${campaignId}`))[0]!.n);
const inbound = (wamid: string) =>
  rowsOf<{ user_id: number; type: string; body: string | null; button_payload: string | null; context_wamid: string | null; campaign_id: number | null; recipient_id: number | null; from_phone_key: string | null; from_bsuid: string | null }>(
    t.ctx.db,
    sql`select user_id, type, body, button_payload, context_wamid, campaign_id, recipient_id::int as recipient_id, from_phone_key, from_bsuid
        from inbound_messages where wamid = ${wamid}`,
  );
const detail = async (id: number, user = a) => (await t.app.inject({ method: 'GET', url: `/api/campaigns/${id}`, headers: user.headers })).json();
const messages = async (id: number, query: string, user = a) =>
  t.app.inject({ method: 'GET', url: `/api/campaigns/${id}/messages?${query}`, headers: user.headers });
const iso = (v: Date | string | null) => (v === null ? null : new Date(v).toISOString());

describe('attribution', () => {
  it('attributes a reply with context to the recipient whose wamid it names', async () => {
    const c = await sentCampaign(a, worldA, [{ digits: '5491130000001', sentHours: 0 }, { digits: '5491130000002', sentHours: 0 }]);
    await deliver(textMessage(NUMBER_A, { from: '5491130000001', id: 'wamid.in.ctx.1', at: at(1), contextId: c.rows[0]!.wamid, body: '¿Tienen en azul?' }));
    expect(await recipient(c.rows[0]!.id)).toEqual({ replied_at: expect.anything(), reply_count: 1, last_reply: '¿Tienen en azul?', button_tapped: null });
    expect(iso((await recipient(c.rows[0]!.id)).replied_at)).toBe(at(1).toISOString());
    expect((await recipient(c.rows[1]!.id)).reply_count).toBe(0);
    expect(await repliedCount(c.id)).toBe(1);
    expect(await inbound('wamid.in.ctx.1')).toEqual([
      expect.objectContaining({ type: 'text', body: '¿Tienen en azul?', context_wamid: c.rows[0]!.wamid, campaign_id: c.id, recipient_id: c.rows[0]!.id, from_phone_key: phoneKey('+5491130000001') }),
    ]);
  });

  it('without context, attributes to the last campaign message sent to that phone by the same number within 72 h', async () => {
    const older = await sentCampaign(a, worldA, [{ digits: '5491130000010', sentHours: 0 }]);
    const newer = await sentCampaign(a, worldA, [{ digits: '5491130000010', sentHours: 5 }]);
    // Another tenant sent to the same person later: its message is not this number's.
    const foreign = await sentCampaign(b, worldB, [{ digits: '5491130000010', sentHours: 6 }]);
    await deliver(textMessage(NUMBER_A, { from: '5491130000010', id: 'wamid.in.noctx.1', at: at(8), body: 'Hola, me interesa' }));
    expect((await recipient(newer.rows[0]!.id)).reply_count).toBe(1);
    expect((await recipient(older.rows[0]!.id)).reply_count).toBe(0);
    expect((await recipient(foreign.rows[0]!.id)).reply_count).toBe(0);
    expect(await repliedCount(newer.id)).toBe(1);
  });

  it('does not attribute a reply sent more than 72 h after the last campaign message (it is still recorded)', async () => {
    const c = await sentCampaign(a, worldA, [{ digits: '5491130000020', sentHours: 0 }]);
    await deliver(textMessage(NUMBER_A, { from: '5491130000020', id: 'wamid.in.late', at: at(73), body: 'Perdón la demora' }));
    expect((await recipient(c.rows[0]!.id)).reply_count).toBe(0);
    expect(await repliedCount(c.id)).toBe(0);
    expect(await inbound('wamid.in.late')).toEqual([expect.objectContaining({ user_id: a.userId, campaign_id: null, recipient_id: null, body: 'Perdón la demora' })]);
  });

  it('does not attribute a reply naming another tenant’s wamid', async () => {
    const theirs = await sentCampaign(a, worldA, [{ digits: '5491130000030', sentHours: 0 }]);
    // Written to B's number, quoting A's message id: B records it, nobody's recipient changes.
    await deliver(textMessage(NUMBER_B, { from: '5491130000030', id: 'wamid.in.foreign', at: at(1), contextId: theirs.rows[0]!.wamid, body: 'Hola' }));
    expect((await recipient(theirs.rows[0]!.id)).reply_count).toBe(0);
    expect(await repliedCount(theirs.id)).toBe(0);
    expect(await inbound('wamid.in.foreign')).toEqual([expect.objectContaining({ user_id: b.userId, campaign_id: null, recipient_id: null })]);
  });

  it('attributes a message from a username user known only by BSUID', async () => {
    const bsuid = 'AR.13491208655302741918';
    const c = await sentCampaign(a, worldA, [{ bsuid, sentHours: 0 }]);
    await deliver(usernameTextMessage(NUMBER_A, { bsuid, id: 'wamid.in.bsuid', at: at(2), body: 'Quiero más info' }));
    expect(await recipient(c.rows[0]!.id)).toMatchObject({ reply_count: 1, last_reply: 'Quiero más info' });
    expect(await inbound('wamid.in.bsuid')).toEqual([expect.objectContaining({ from_phone_key: null, from_bsuid: bsuid, campaign_id: c.id })]);
  });

  it('attributes by BSUID a recipient sent by phone whose row learned its BSUID', async () => {
    const bsuid = 'AR.55500011122233344455';
    const c = await sentCampaign(a, worldA, [{ digits: '5491130000040', sentHours: 0 }]);
    await t.ctx.db.execute(sql`update campaign_recipients set bsuid = ${bsuid} where id = ${c.rows[0]!.id}`);
    await deliver(usernameTextMessage(NUMBER_A, { bsuid, id: 'wamid.in.bsuid2', at: at(1), body: 'Gracias' }));
    expect((await recipient(c.rows[0]!.id)).reply_count).toBe(1);
  });
});

describe('duplicate and reordered webhooks', () => {
  it('keeps a message delivered twice once, and counts it once', async () => {
    const c = await sentCampaign(a, worldA, [{ digits: '5491130000050', sentHours: 0 }]);
    const payload = textMessage(NUMBER_A, { from: '5491130000050', id: 'wamid.in.dup', at: at(1), contextId: c.rows[0]!.wamid, body: 'Sí' });
    await deliver(payload);
    await deliver(payload);
    await deliver(JSON.parse(JSON.stringify(payload)));
    expect(await inbound('wamid.in.dup')).toHaveLength(1);
    expect((await recipient(c.rows[0]!.id)).reply_count).toBe(1);
    expect(await repliedCount(c.id)).toBe(1);
  });

  it('a later message arriving first still leaves last_reply the newest and replied_at the earliest', async () => {
    const c = await sentCampaign(a, worldA, [{ digits: '5491130000060', sentHours: 0 }]);
    await deliver(textMessage(NUMBER_A, { from: '5491130000060', id: 'wamid.in.second', at: at(3), body: 'segunda' }));
    await deliver(textMessage(NUMBER_A, { from: '5491130000060', id: 'wamid.in.first', at: at(2), body: 'primera' }));
    const r = await recipient(c.rows[0]!.id);
    expect(r).toMatchObject({ reply_count: 2, last_reply: 'segunda' });
    expect(iso(r.replied_at)).toBe(at(2).toISOString());
    expect(await repliedCount(c.id)).toBe(1);
  });
});

describe('media and interactive messages', () => {
  it('records media with its type and no body, and shows it as the latest reply', async () => {
    const c = await sentCampaign(a, worldA, [{ digits: '5491130000070', sentHours: 0 }]);
    await deliver(imageMessage(NUMBER_A, { from: '5491130000070', id: 'wamid.in.img', at: at(1), contextId: c.rows[0]!.wamid }));
    expect(await inbound('wamid.in.img')).toEqual([expect.objectContaining({ type: 'image', body: null, campaign_id: c.id })]);
    expect(await recipient(c.rows[0]!.id)).toMatchObject({ reply_count: 1, last_reply: '[Imagen]' });
    await deliver(reactionMessage(NUMBER_A, { from: '5491130000070', id: 'wamid.in.react', at: at(2), messageId: c.rows[0]!.wamid, emoji: '👍' }));
    await deliver(locationMessage(NUMBER_A, { from: '5491130000070', id: 'wamid.in.loc', at: at(3) }));
    expect((await inbound('wamid.in.react'))[0]).toMatchObject({ type: 'reaction', body: null, context_wamid: c.rows[0]!.wamid, campaign_id: c.id });
    expect((await inbound('wamid.in.loc'))[0]).toMatchObject({ type: 'location', body: null });
    expect(await recipient(c.rows[0]!.id)).toMatchObject({ reply_count: 3, last_reply: '[Ubicación]' });
  });

  it('keeps the interactive reply’s title as the body', async () => {
    const c = await sentCampaign(a, worldA, [{ digits: '5491130000080', sentHours: 0 }, { digits: '5491130000081', sentHours: 0 }]);
    await deliver(buttonReplyMessage(NUMBER_A, { from: '5491130000080', id: 'wamid.in.ibtn', at: at(1), contextId: c.rows[0]!.wamid, replyId: 'si', title: 'Sí, quiero' }));
    await deliver(listReplyMessage(NUMBER_A, { from: '5491130000081', id: 'wamid.in.list', at: at(1), contextId: c.rows[1]!.wamid, rowId: 'plan-2', title: 'Plan Plus' }));
    expect((await inbound('wamid.in.ibtn'))[0]).toMatchObject({ type: 'interactive', body: 'Sí, quiero' });
    expect((await inbound('wamid.in.list'))[0]).toMatchObject({ type: 'interactive', body: 'Plan Plus' });
  });
});

describe('quick-reply taps, the replies card and the recipients filter', () => {
  let c: Awaited<ReturnType<typeof sentCampaign>>;
  const payload = (campaignId: number, index: number) => createButtonPayload(t.ctx.config.APP_SECRET).sign({ campaignId, index });

  beforeAll(async () => {
    c = await sentCampaign(a, worldA, [
      { digits: '5491130000101', sentHours: 0 },
      { digits: '5491130000102', sentHours: 0 },
      { digits: '5491130000103', sentHours: 0 },
      { digits: '5491130000104', sentHours: 0 },
      { digits: '5491130000105', sentHours: 0, status: 'failed' },
    ]);
    const tap = (i: number, index: number, text: string, hours: number, id: string) =>
      deliver(buttonMessage(NUMBER_A, { from: c.rows[i]!.digits!, id, at: at(hours), contextId: c.rows[i]!.wamid, payload: payload(c.id, index), text }));
    await tap(0, 0, 'Me interesa', 1, 'wamid.tap.0a');
    await tap(0, 0, 'Me interesa', 2, 'wamid.tap.0b');
    await tap(1, 0, 'Me interesa', 1, 'wamid.tap.1');
    await tap(2, 1, 'Más tarde', 1, 'wamid.tap.2');
    await deliver(textMessage(NUMBER_A, { from: c.rows[2]!.digits!, id: 'wamid.txt.2', at: at(3), body: 'Escríbanme el lunes' }));
  });

  it('stores the tap with its payload and the first button tapped per recipient', async () => {
    expect((await inbound('wamid.tap.2'))[0]).toMatchObject({ type: 'button', body: 'Más tarde', button_payload: payload(c.id, 1), campaign_id: c.id });
    expect(await recipient(c.rows[2]!.id)).toMatchObject({ reply_count: 2, button_tapped: 'Más tarde', last_reply: 'Escríbanme el lunes' });
    expect(await recipient(c.rows[0]!.id)).toMatchObject({ reply_count: 2, button_tapped: 'Me interesa' });
  });

  it('the detail counts replied, the rate over accepted messages, and taps per button', async () => {
    const d = await detail(c.id);
    expect(d.replies).toEqual({
      replied: 3,
      accepted: 5,
      rate: 0.6,
      taps: [
        { button: 'Me interesa', taps: 3, recipients: 2 },
        { button: 'Más tarde', taps: 1, recipients: 1 },
      ],
    });
    // Another tenant cannot read it.
    expect((await t.app.inject({ method: 'GET', url: `/api/campaigns/${c.id}`, headers: b.headers })).statusCode).toBe(404);
  });

  it('filters the recipients by replied, not replied and tapped button, with each reply', async () => {
    const replied = (await messages(c.id, 'group=replied')).json();
    expect(replied.total).toBe(3);
    expect(replied.messages[0]).toMatchObject({ reply_count: 2, last_reply: 'Me interesa', button_tapped: 'Me interesa', replied_at: at(1).toISOString() });
    const notReplied = (await messages(c.id, 'group=not_replied')).json();
    expect(notReplied.messages.map((m: { id: number }) => m.id)).toEqual([c.rows[3]!.id]);
    const tapped = (await messages(c.id, `group=tapped&button=${encodeURIComponent('Me interesa')}`)).json();
    expect(tapped.messages.map((m: { id: number }) => m.id)).toEqual([c.rows[0]!.id, c.rows[1]!.id]);
    expect((await messages(c.id, 'group=tapped')).statusCode).toBe(400);
    expect((await messages(c.id, 'group=nada')).statusCode).toBe(400);
  });
});

describe('actual cost', () => {
  const HEADER = 'categoria,pais,vigente_desde,usd_por_mensaje,fuente,fecha_fuente';

  it('prices delivered messages by category, type and country with the rate card; free types cost 0; missing rates and pricing are counted apart', async () => {
    const day = at(0).toISOString().slice(0, 10);
    await createRateCardService(t.ctx.db).upload(
      a.userId,
      [HEADER, `marketing,AR,${day},0.0618,,`, `utility,AR,${day},0.02,,`, 'marketing,MX,2020-01-01,0.0436,,'].join('\n'),
    );
    const c = await sentCampaign(a, worldA, [
      { digits: '5491130000201', sentHours: 0 }, // regular marketing AR
      { digits: '5491130000202', sentHours: 0 }, // regular marketing AR
      { digits: '5491130000203', sentHours: 0 }, // free entry point
      { digits: '5491130000204', sentHours: 0 }, // free customer service (utility)
      { digits: '5491130000205', sentHours: 0 }, // old CBP shape
      { digits: '5491130000206', sentHours: 0 }, // no pricing at all
      { digits: '5491130000207', sentHours: 0, country: 'ES' }, // no rate for Spain: sin tarifa
      { digits: '5491130000208', sentHours: 0 }, // PMP without type
      { digits: '5215512345678', sentHours: 0, country: null }, // country from the phone: Mexico
      { digits: '5491130000209', sentHours: 0 }, // accepted, never delivered: not charged
    ]);
    const status = (i: number, pricing: Record<string, unknown> | null, s: 'sent' | 'delivered' = 'delivered') =>
      deliver(pricedStatus(NUMBER_A, { wamid: c.rows[i]!.wamid, status: s, recipient: c.rows[i]!.digits!, at: at(0.1), pricing }));
    await status(0, PMP('marketing', 'regular'));
    await status(1, PMP('marketing', 'regular'));
    await status(2, PMP('marketing', 'free_entry_point'));
    await status(3, PMP('utility', 'free_customer_service'));
    await status(4, CBP('marketing'));
    await status(5, null);
    await status(6, PMP('marketing', 'regular'));
    await status(7, { pricing_model: 'PMP', category: 'marketing' });
    await status(8, PMP('marketing_lite', 'regular'));
    await status(9, PMP('marketing', 'regular'), 'sent');

    const cost = (await detail(c.id)).actual_cost;
    expect(cost).toMatchObject({ currency: 'USD', priced: 3, free: 2, no_rate: 1, unpriceable: 3 });
    expect(cost.total).toBeCloseTo(0.0618 * 2 + 0.0436, 6);
    expect(cost.lines).toEqual(
      expect.arrayContaining([
        { category: 'marketing', country: 'AR', type: 'regular', model: 'PMP', count: 2, total: 0.1236, status: 'priced' },
        { category: 'marketing_lite', country: 'MX', type: 'regular', model: 'PMP', count: 1, total: 0.0436, status: 'priced' },
        { category: 'marketing', country: 'AR', type: 'free_entry_point', model: 'PMP', count: 1, total: 0, status: 'free' },
        { category: 'utility', country: 'AR', type: 'free_customer_service', model: 'PMP', count: 1, total: 0, status: 'free' },
        { category: 'marketing', country: 'AR', type: null, model: 'CBP', count: 1, total: null, status: 'unpriceable' },
        { category: null, country: 'AR', type: null, model: null, count: 1, total: null, status: 'unpriceable' },
        { category: 'marketing', country: 'ES', type: 'regular', model: 'PMP', count: 1, total: null, status: 'no_rate' },
        { category: 'marketing', country: 'AR', type: null, model: 'PMP', count: 1, total: null, status: 'unpriceable' },
      ]),
    );
    expect(cost.lines).toHaveLength(8);
    // The estimate: the template's category (MARKETING) for the 10 attempted, by country.
    expect(cost.estimate).toMatchObject({ priced: 9, unpriced: 1 });
    expect(cost.estimate.total).toBeCloseTo(0.0618 * 8 + 0.0436, 6);
  });

  it('the same category and type in two countries are two lines, each naming its country and priced at its rate', async () => {
    const c = await sentCampaign(a, worldA, [
      { digits: '5491130000401', sentHours: 0 },
      { digits: '5491130000402', sentHours: 0 },
      { digits: '5215512340403', sentHours: 0, country: 'MX' },
    ]);
    for (const i of [0, 1, 2])
      await deliver(pricedStatus(NUMBER_A, { wamid: c.rows[i]!.wamid, status: 'delivered', recipient: c.rows[i]!.digits!, at: at(0.1), pricing: PMP('marketing', 'regular') }));
    const lines = (await detail(c.id)).actual_cost.lines;
    expect(lines).toEqual([
      { category: 'marketing', country: 'AR', type: 'regular', model: 'PMP', count: 2, total: 0.1236, status: 'priced' },
      { category: 'marketing', country: 'MX', type: 'regular', model: 'PMP', count: 1, total: 0.0436, status: 'priced' },
    ]);
  });

  it('a campaign not started has no actual cost, and one with nothing delivered costs 0', async () => {
    const draft = await createCampaign(t.ctx, a.userId, {
      name: 'Borrador', kommo_account_id: worldA.kommoAccountId, whatsapp_account_id: worldA.whatsappAccountId, template_id: worldA.templateId, filters: {},
    });
    expect((await detail(draft.id)).actual_cost).toBeNull();
    const c = await sentCampaign(a, worldA, [{ digits: '5491130000301', sentHours: 0 }]);
    expect((await detail(c.id)).actual_cost).toMatchObject({ total: 0, priced: 0, lines: [] });
  });
});
