import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWhatsAppSim, type WhatsAppSim } from '../src/whatsapp/index';
import { call, waitFor } from './helpers/graph';
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver';

/**
 * Replies and quick-reply taps to the simulator's own messages, in Meta's shapes: a text with
 * `context: { from, id }`, and `type: button` with `button: { payload, text }` and context. A tap
 * names a quick-reply button of the template sent and echoes the payload the send gave it.
 */
describe('WhatsApp simulator: replies and taps (/__control/reply)', () => {
  let sim: WhatsAppSim;
  let hook: WebhookReceiver;
  const c = (path: string, body?: unknown) => call(`${sim.url}/__control${path}`, { body });
  const BUTTONS = [
    { type: 'QUICK_REPLY', text: 'Me interesa' },
    { type: 'URL', text: 'Ver tienda', url: 'https://tienda.example' },
    { type: 'QUICK_REPLY', text: 'No me interesa' },
  ];
  const send = (to: string, name = 'oferta', payloads: Array<[number, string]> = [[0, 'qr-0-signed'], [2, 'qr-2-signed']]) =>
    call(`${sim.graphUrl}/1201/messages`, {
      token: 'rp',
      body: {
        messaging_product: 'whatsapp',
        to,
        type: 'template',
        template: {
          name,
          language: { code: 'es' },
          components: name === 'oferta'
            ? payloads.map(([index, payload]) => ({ type: 'button', sub_type: 'quick_reply', index: String(index), parameters: [{ type: 'payload', payload }] }))
            : [],
        },
      },
    });
  const inbound = () => hook.received.flatMap((r) => r.body.entry.flatMap((e: any) => e.changes.flatMap((ch: any) => ch.value.messages ?? [])));

  beforeAll(async () => {
    hook = await startWebhookReceiver('reply-secret');
    sim = await startWhatsAppSim({
      appSecret: 'reply-secret',
      statusDelayMs: 5,
      numbers: [{ phoneNumberId: '1201', wabaId: '1200', token: 'rp', displayPhoneNumber: '5491150001200' }],
      templates: [
        { wabaId: '1200', name: 'oferta', language: 'es', category: 'MARKETING', components: [{ type: 'BODY', text: 'Tenemos una oferta para ti.' }, { type: 'BUTTONS', buttons: BUTTONS }] },
        { wabaId: '1200', name: 'aviso', language: 'es', category: 'UTILITY', components: [{ type: 'BODY', text: 'Tu pedido salió.' }] },
      ],
    });
    sim.configure({ webhookUrl: hook.url });
  });
  afterAll(async () => {
    await sim.close();
    await hook.close();
  });

  it('replies with text to a message by wamid, with context', async () => {
    const sent = (await send('5491130001201')).json.messages[0].id;
    const res = await c('/reply', { wamid: sent, text: '¿Tienen en azul?' });
    expect(res.json).toEqual({ ok: true, wamid: expect.stringMatching(/^wamid\./), context: sent });
    await waitFor(() => inbound().some((m) => m.id === res.json.wamid));
    expect(inbound().find((m) => m.id === res.json.wamid)).toEqual({
      from: '5491130001201',
      id: res.json.wamid,
      timestamp: expect.stringMatching(/^\d+$/),
      context: { from: '5491150001200', id: sent },
      type: 'text',
      text: { body: '¿Tienen en azul?' },
    });
  });

  it('taps a quick-reply button of the last message to a phone, echoing the payload sent for it', async () => {
    const sent = (await send('5491130001202')).json.messages[0].id;
    const res = await c('/reply', { phone: '+54 9 11 3000-1202', button: 'No me interesa' });
    expect(res.json.context).toBe(sent);
    await waitFor(() => inbound().some((m) => m.id === res.json.wamid));
    expect(inbound().find((m) => m.id === res.json.wamid)).toMatchObject({
      type: 'button',
      context: { from: '5491150001200', id: sent },
      button: { payload: 'qr-2-signed', text: 'No me interesa' },
    });
    // By index among the template's buttons; without a payload in the send, Meta echoes the text.
    const bare = (await send('5491130001203', 'oferta', [])).json.messages[0].id;
    const byIndex = await c('/reply', { wamid: bare, button: 0 });
    await waitFor(() => inbound().some((m) => m.id === byIndex.json.wamid));
    expect(inbound().find((m) => m.id === byIndex.json.wamid).button).toEqual({ payload: 'Me interesa', text: 'Me interesa' });
  });

  it('refuses a tap that is not a quick reply of the template sent, or a payload that was not sent', async () => {
    const sent = (await send('5491130001204')).json.messages[0].id;
    expect((await c('/reply', { wamid: sent, button: 'Ver tienda' })).status).toBe(400);
    expect((await c('/reply', { wamid: sent, button: 'Quiero' })).status).toBe(400);
    expect((await c('/reply', { wamid: sent, button: 'Me interesa', payload: 'forged' })).status).toBe(400);
    expect((await c('/reply', { wamid: sent, button: 'Me interesa', payload: 'qr-0-signed' })).status).toBe(200);
    const plain = (await send('5491130001205', 'aviso')).json.messages[0].id;
    expect((await c('/reply', { wamid: plain, button: 0 })).json.error).toMatch(/no quick-reply button/);
    expect((await c('/reply', { wamid: 'wamid.unknown', text: 'hola' })).status).toBe(400);
    expect((await c('/reply', { phone: '5491139999999', text: 'hola' })).status).toBe(400);
    expect((await c('/reply', { wamid: sent })).status).toBe(400);
  });

  it('sends a tap through /__control/inbound in the same shape', async () => {
    const res = await c('/inbound', { phoneNumberId: '1201', from: '5491130001206', context: 'wamid.any', button: { payload: 'p', text: 'Me interesa' } });
    await waitFor(() => inbound().some((m) => m.id === res.json.wamid));
    expect(inbound().find((m) => m.id === res.json.wamid)).toMatchObject({ type: 'button', context: { id: 'wamid.any' }, button: { payload: 'p', text: 'Me interesa' } });
  });

  it('auto-replies: a share of delivered messages taps a button or writes, off by default', async () => {
    expect((await c('/configure', { autoReplies: { tapShare: 0.8, replyShare: 0.5, delayMs: 0 } })).status).toBe(400);
    expect((await c('/configure', { autoReplies: { tapShare: 1, replyShare: 0, delayMs: 0 } })).json).toEqual({ ok: true });
    const sent = (await send('5491130001207')).json.messages[0].id;
    await waitFor(() => inbound().some((m) => m.context?.id === sent));
    expect(inbound().find((m) => m.context?.id === sent)).toMatchObject({ type: 'button', button: { payload: expect.stringMatching(/^qr-[02]-signed$/) } });
    await c('/configure', { autoReplies: { tapShare: 0, replyShare: 1, delayMs: 0, texts: ['Gracias'] } });
    const texted = (await send('5491130001208')).json.messages[0].id;
    await waitFor(() => inbound().some((m) => m.context?.id === texted));
    expect(inbound().find((m) => m.context?.id === texted).text).toEqual({ body: 'Gracias' });
    await c('/configure', { autoReplies: null });
    const quiet = (await send('5491130001209')).json.messages[0].id;
    await new Promise((r) => setTimeout(r, 150));
    expect(inbound().some((m) => m.context?.id === quiet)).toBe(false);
  });
});
