import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWhatsAppSim, type WhatsAppSim } from '../src/whatsapp/index';
import { call, templateSend } from './helpers/graph';
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver';

describe('WhatsApp simulator: /__control endpoints', () => {
  let sim: WhatsAppSim;
  let hook: WebhookReceiver;
  const c = (path: string, body?: unknown) => call(`${sim.url}/__control${path}`, { body });
  const send = (to: string, biz?: string) =>
    call(`${sim.graphUrl}/1101/messages`, { token: 'ctl', body: templateSend(to, 'hola', [], biz ? { biz_opaque_callback_data: biz } : {}) });

  beforeAll(async () => {
    hook = await startWebhookReceiver('remote-secret');
    sim = await startWhatsAppSim();
  });
  afterAll(async () => {
    await sim.close();
    await hook.close();
  });

  it('sets up numbers, templates and settings remotely', async () => {
    expect((await c('/numbers', { phoneNumberId: '1101', wabaId: '1100', token: 'ctl', displayPhoneNumber: '5491150000000' })).json).toEqual({ ok: true });
    expect((await c('/templates', { wabaId: '1100', name: 'hola', language: 'es', category: 'UTILITY', components: [{ type: 'BODY', text: 'Hola, ¿cómo estás?' }] })).json)
      .toEqual({ ok: true, id: expect.any(String) });
    expect((await c('/templates?wabaId=1100')).json.map((t: any) => t.name)).toEqual(['hola']);
    expect((await c('/configure', { webhookUrl: hook.url, appSecret: 'remote-secret', statusDelayMs: 5, readRate: 0, rejectTemplatesMatching: 'malo' })).json).toEqual({ ok: true });
    expect((await c('/configure', { deliveryRate: 7 })).status).toBe(400);
    expect((await c('/throughput', { phoneNumberId: '1101', perSecond: 2 })).json).toEqual({ ok: true });
  });

  it('sends, inspects and resets remotely', async () => {
    expect((await send('5491100000001', 'x')).status).toBe(200);
    expect((await send('5491100000002', 'x')).status).toBe(200);
    expect((await send('5491100000003')).json.error.code).toBe(130429);
    const messages = (await c('/messages?limit=1')).json;
    expect(messages.total).toBe(2);
    expect(messages.messages).toEqual([expect.objectContaining({ to: '5491100000002', template: 'hola', bizOpaque: 'x', phoneNumberId: '1101' })]);
    expect((await c('/messages?to=5491100000001')).json.messages).toHaveLength(1);
    expect((await c('/counts')).json).toEqual({ 5491100000001: 1, 5491100000002: 1 });
    expect((await c('/duplicates')).json).toEqual([{ to: '5491100000001', bizOpaque: 'x', count: 2 }]);
    expect((await c('/timestamps?phoneNumberId=1101')).json).toHaveLength(2);
    expect((await c('/max-window?phoneNumberId=1101')).json).toEqual({ max: 2 });
    expect((await c('/flush', {})).json).toEqual({ ok: true });
    expect((await c('/webhook-stats')).json).toMatchObject({ sent: 4, failed: 0, pending: 0 });
    expect(hook.received.every((r) => r.signatureValid)).toBe(true);
    // The refused third send is counted per number; accepted sends are not.
    expect((await c('/stats')).json).toMatchObject({ messages: 2, perNumber: { 1101: 2 }, numbers: [{ phoneNumberId: '1101', throughputErrors: 1 }], webhooks: { sent: 4 } });
    // …and kept with its arrival, how late its check ran and how full the window was.
    const [refusal] = (await c('/stats')).json.numbers[0].throughputErrorLog;
    expect(refusal).toEqual({ at: expect.any(Number), checkedAfterMs: expect.any(Number), inWindow: 2 });
    expect(Math.abs(refusal.at - Date.now())).toBeLessThan(60_000);

    expect((await c('/recipient', { phone: '5491100000009', behaviour: 'pair_limit' })).json).toEqual({ ok: true });
    await new Promise((r) => setTimeout(r, 1000));
    expect((await send('5491100000009')).json.error.code).toBe(131056);
    expect((await c('/fault', { kind: 'code', code: 368 })).json).toEqual({ ok: true });
    const blocked = await send('5491100000004');
    expect([blocked.status, blocked.json.error.code]).toEqual([403, 368]);
    expect((await c('/fault', { kind: 'nope' })).status).toBe(400);

    hook.received.length = 0;
    expect((await c('/inbound', { phoneNumberId: '1101', from: '5491100000001', text: 'STOP' })).json).toEqual({ ok: true, wamid: expect.any(String) });
    expect(hook.received[0].body.entry[0].changes[0].value.messages[0].text.body).toBe('STOP');

    expect((await c('/reset', {})).json).toEqual({ ok: true });
    expect((await c('/messages')).json).toEqual({ total: 0, messages: [] });
    expect((await c('/templates?wabaId=1100')).json).toHaveLength(1);
  });

  it("refuses one number's sends with a given code (131031: account locked) in Meta's Graph error shape, the other number's not", async () => {
    expect((await c('/numbers', { phoneNumberId: '1102', wabaId: '1100', token: 'ctl', displayPhoneNumber: '5491150000001' })).json).toEqual({ ok: true });
    const sendFrom = (number: string, to: string) =>
      call(`${sim.graphUrl}/${number}/messages`, { token: 'ctl', body: templateSend(to, 'hola', []) });
    expect((await c('/fault', { kind: 'code', code: 131031, phoneNumberId: '1102', count: 1 })).json).toEqual({ ok: true });
    await new Promise((r) => setTimeout(r, 1_100));
    // Another number's send does not take the fault.
    expect((await sendFrom('1101', '5491100000021')).status).toBe(200);
    const refused = await sendFrom('1102', '5491100000022');
    expect(refused.status).toBe(403);
    expect(refused.json).toEqual({
      error: {
        message: '(#131031) Business Account locked',
        type: 'OAuthException',
        code: 131031,
        error_data: { messaging_product: 'whatsapp', details: expect.any(String) },
        fbtrace_id: expect.any(String),
      },
    });
    expect(refused.json.error.error_data.details.length).toBeGreaterThan(0);
    // `count` sends only: the next one from that number goes through.
    expect((await sendFrom('1102', '5491100000023')).status).toBe(200);
    expect((await c('/messages?to=5491100000022')).json.messages).toEqual([]);
  });
});
