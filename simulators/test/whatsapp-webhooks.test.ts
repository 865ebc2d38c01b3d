import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startWhatsAppSim, type WhatsAppSim } from '../src/whatsapp/index';
import { call, templateSend } from './helpers/graph';
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver';

const PN = '3001';
const WABA = '4001';
const TOKEN = 'wh-token';
const SECRET = 'test-app-secret';

describe('WhatsApp simulator: webhooks', () => {
  let sim: WhatsAppSim;
  let hook: WebhookReceiver;
  const send = (to: string, biz?: string) =>
    call(`${sim.graphUrl}/${PN}/messages`, { token: TOKEN, body: templateSend(to, 'aviso', ['Ana'], biz ? { biz_opaque_callback_data: biz } : {}) });

  beforeAll(async () => {
    hook = await startWebhookReceiver(SECRET);
    sim = await startWhatsAppSim({
      appSecret: SECRET,
      webhookUrl: hook.url,
      statusDelayMs: 10,
      numbers: [{ phoneNumberId: PN, wabaId: WABA, token: TOKEN, displayPhoneNumber: '5491150000000', throughput: 1000 }],
      templates: [{ wabaId: WABA, name: 'aviso', language: 'es', category: 'MARKETING', components: [{ type: 'BODY', text: 'Hola {{1}}, novedades.' }] }],
    });
  });
  afterAll(async () => {
    await sim.close();
    await hook.close();
  });
  beforeEach(() => {
    sim.reset();
    sim.configure({ deliveryRate: 1, readRate: 1, failRate: 0, duplicateWebhooks: false, reorderWebhooks: false, webhookRetry: true, webhookBatchMax: 100, appSecret: SECRET });
    hook.received.length = 0;
  });

  it('posts signed sent -> delivered -> read statuses that echo biz_opaque_callback_data', async () => {
    const r = await send('5491122223333', 'campaign-1:recipient-9');
    const wamid = r.json.messages[0].id;
    await sim.flushWebhooks();
    expect(hook.received.length).toBeGreaterThan(0);
    expect(hook.received.every((x) => x.signatureValid)).toBe(true);
    const statuses = hook.statuses();
    expect(statuses.map((s) => s.status)).toEqual(['sent', 'delivered', 'read']);
    for (const s of statuses) {
      expect(s).toMatchObject({ id: wamid, recipient_id: '5491122223333', biz_opaque_callback_data: 'campaign-1:recipient-9', timestamp: expect.stringMatching(/^\d+$/) });
    }
    expect(statuses[0].pricing).toEqual({ billable: true, pricing_model: 'PMP', type: 'regular', category: 'marketing' });
    const body = hook.received[0].body;
    expect(body).toMatchObject({ object: 'whatsapp_business_account', entry: [{ id: WABA, changes: [{ field: 'messages', value: {
      messaging_product: 'whatsapp', metadata: { display_phone_number: '5491150000000', phone_number_id: PN } } }] }] });
    expect(sim.webhookStats()).toMatchObject({ sent: 3, failed: 0, pending: 0 });
  });

  it('omits biz_opaque_callback_data when it was not sent, and signatures fail with another secret', async () => {
    sim.configure({ appSecret: 'other-secret', readRate: 0 });
    await send('5491122224444');
    await sim.flushWebhooks();
    expect(hook.statuses().map((s) => s.status)).toEqual(['sent', 'delivered']);
    expect(hook.statuses()[0]).not.toHaveProperty('biz_opaque_callback_data');
    expect(hook.received.every((x) => !x.signatureValid)).toBe(true);
  });

  it('reports failed statuses with the webhook error shape for not_on_whatsapp and opted_out', async () => {
    sim.setRecipientBehaviour('5491100000001', 'not_on_whatsapp');
    sim.setRecipientBehaviour('5491100000002', 'opted_out');
    expect((await send('5491100000001', 'a')).status).toBe(200);
    expect((await send('5491100000002', 'b')).status).toBe(200);
    await sim.flushWebhooks();
    const byBiz = Object.fromEntries(hook.statuses().map((s) => [s.biz_opaque_callback_data, s]));
    expect(byBiz.a).toMatchObject({ status: 'failed', errors: [{ code: 131026, title: 'Message undeliverable', message: 'Message undeliverable', error_data: { details: expect.any(String) }, href: expect.any(String) }] });
    expect(byBiz.b).toMatchObject({ status: 'failed', errors: [{ code: 131050 }] });
    expect(hook.statuses()).toHaveLength(2);
  });

  it('applies delivery, read and fail rates', async () => {
    sim.configure({ failRate: 1 });
    await send('5491100000003');
    sim.configure({ failRate: 0, deliveryRate: 0 });
    await send('5491100000004');
    await sim.flushWebhooks();
    const statuses = hook.statuses();
    expect(statuses.filter((s) => s.recipient_id === '5491100000003').map((s) => [s.status, s.errors?.[0].code])).toEqual([['failed', 131049]]);
    expect(statuses.filter((s) => s.recipient_id === '5491100000004').map((s) => s.status)).toEqual(['sent']);
  });

  it('batches up to webhookBatchMax statuses per POST', async () => {
    sim.configure({ webhookBatchMax: 7, deliveryRate: 0 });
    await Promise.all(Array.from({ length: 30 }, (_, i) => send(`54911000${String(i).padStart(5, '0')}`)));
    await sim.flushWebhooks();
    const sizes = hook.received.map((r) => r.body.entry[0].changes[0].value.statuses.length);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(30);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(7);
    expect(sizes.some((n) => n > 1)).toBe(true);
  });

  it('can post every batch twice and send read before delivered', async () => {
    sim.configure({ duplicateWebhooks: true });
    await send('5491100000005', 'dup');
    await sim.flushWebhooks();
    // Each batch arrives twice; posts run in parallel, so only the counts are certain.
    expect(hook.statuses().map((s) => s.status).sort()).toEqual(['delivered', 'delivered', 'read', 'read', 'sent', 'sent']);

    hook.received.length = 0;
    sim.configure({ duplicateWebhooks: false, reorderWebhooks: true, statusDelayMs: 80 });
    await send('5491100000006', 'reorder');
    await sim.flushWebhooks();
    sim.configure({ statusDelayMs: 10 });
    expect(hook.statuses().map((s) => s.status)).toEqual(['sent', 'read', 'delivered']);
  });

  it('retries failed deliveries with backoff and counts what it gave up on', async () => {
    hook.failNext(2, 503);
    await send('5491100000007', 'retry');
    await sim.flushWebhooks();
    expect(hook.statuses().map((s) => s.status).sort()).toEqual(['delivered', 'read', 'sent']);
    expect(sim.webhookStats()).toMatchObject({ sent: 3, failed: 0, pending: 0 });

    hook.received.length = 0;
    sim.configure({ webhookRetry: false });
    hook.failNext(1, 500);
    sim.configure({ deliveryRate: 0 });
    await send('5491100000008');
    await sim.flushWebhooks();
    expect(sim.webhookStats()).toMatchObject({ sent: 3, failed: 1 });
  });

  it('emits webhooks for a lost response', async () => {
    sim.injectFault({ kind: 'lost_response' });
    await expect(send('5491100000009', 'lost')).rejects.toThrow();
    await sim.flushWebhooks();
    expect(hook.statuses().filter((s) => s.biz_opaque_callback_data === 'lost').map((s) => s.status)).toEqual(['sent', 'delivered', 'read']);
  });

  it('posts inbound text messages', async () => {
    await sim.sendInbound({ phoneNumberId: PN, from: '+54 9 11 2222-3333', text: 'BAJA' });
    expect(hook.received).toHaveLength(1);
    expect(hook.received[0].signatureValid).toBe(true);
    const value = hook.received[0].body.entry[0].changes[0].value;
    expect(hook.received[0].body.entry[0].changes[0].field).toBe('messages');
    expect(value).toMatchObject({
      messaging_product: 'whatsapp',
      metadata: { display_phone_number: '5491150000000', phone_number_id: PN },
      contacts: [{ profile: { name: expect.any(String) }, wa_id: '5491122223333' }],
      messages: [{ from: '5491122223333', id: expect.stringMatching(/^wamid\./), timestamp: expect.stringMatching(/^\d+$/), type: 'text', text: { body: 'BAJA' } }],
    });
  });

  it('sends nothing when webhookUrl is null', async () => {
    sim.configure({ webhookUrl: null });
    await send('5491100000010');
    await sim.flushWebhooks();
    await sim.sendInbound({ phoneNumberId: PN, from: '5491100000010', text: 'hola' });
    expect(hook.received).toHaveLength(0);
    expect(sim.webhookStats().pending).toBe(0);
    sim.configure({ webhookUrl: hook.url });
  });

  it('keeps sending fast while webhooks are slow to deliver', async () => {
    hook.setDelay(200);
    const start = performance.now();
    await Promise.all(Array.from({ length: 300 }, (_, i) => send(`54911200${String(i).padStart(5, '0')}`)));
    expect(performance.now() - start).toBeLessThan(3000);
    expect(sim.webhookStats().pending).toBeGreaterThan(0);
    await sim.flushWebhooks();
    hook.setDelay(0);
    expect(hook.statuses()).toHaveLength(900);
    expect(sim.webhookStats()).toMatchObject({ sent: 900, failed: 0, pending: 0 });
  });
});
