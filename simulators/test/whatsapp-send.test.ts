import { Pool } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startWhatsAppSim, type WhatsAppSim } from '../src/whatsapp/index';
import { call, templateSend } from './helpers/graph';

const PN = '1001';
const WABA = '2001';
const TOKEN = 'wa-token';

describe('WhatsApp simulator: sending', () => {
  let sim: WhatsAppSim;
  const send = (body: unknown, token = TOKEN, pn = PN) => call(`${sim.graphUrl}/${pn}/messages`, { token, body });

  beforeAll(async () => {
    sim = await startWhatsAppSim({
      numbers: [
        { phoneNumberId: PN, wabaId: WABA, token: TOKEN, displayPhoneNumber: '+54 9 11 5000-0000', verifiedName: 'Masivo', qualityRating: 'GREEN' },
        { phoneNumberId: '1002', wabaId: WABA, token: TOKEN, displayPhoneNumber: '5491150000001', throughput: 1000 },
      ],
      templates: [
        { wabaId: WABA, name: 'promo', language: 'es', category: 'MARKETING', components: [
          { type: 'HEADER', format: 'TEXT', text: 'Oferta {{1}}' },
          { type: 'BODY', text: 'Hola {{1}}, tu plan {{2}} tiene descuento.' },
          { type: 'FOOTER', text: 'Responde BAJA para salir' }] },
        { wabaId: WABA, name: 'simple', language: 'es', category: 'UTILITY', components: [{ type: 'BODY', text: 'Tu pago vence pronto.' }] },
        { wabaId: WABA, name: 'pendiente', language: 'es', category: 'UTILITY', status: 'PENDING', components: [{ type: 'BODY', text: 'x' }] },
        { wabaId: WABA, name: 'pausada', language: 'es', category: 'UTILITY', status: 'PAUSED', components: [{ type: 'BODY', text: 'x' }] },
      ],
    });
  });
  afterAll(() => sim.close());
  beforeEach(() => sim.reset());

  const promo = (to: string, extra: Record<string, unknown> = {}) => ({
    messaging_product: 'whatsapp', to, type: 'template', ...extra,
    template: { name: 'promo', language: { code: 'es' }, components: [
      { type: 'header', parameters: [{ type: 'text', text: 'de marzo' }] },
      { type: 'body', parameters: [{ type: 'text', text: 'Ana' }, { type: 'text', text: 'Pro' }] }] },
  });

  it('answers phone number info, optionally limited to fields', async () => {
    const r = await call(`${sim.graphUrl}/${PN}`, { token: TOKEN });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      verified_name: 'Masivo', code_verification_status: 'VERIFIED', display_phone_number: '5491150000000', quality_rating: 'GREEN',
      platform_type: 'CLOUD_API', throughput: { level: 'STANDARD' }, name_status: 'APPROVED',
      whatsapp_business_manager_messaging_limit: expect.stringMatching(/^TIER_/), id: PN,
    });
    const limited = await call(`${sim.url}/v21.0/1002?fields=throughput,quality_rating`, { token: TOKEN });
    expect(limited.json).toEqual({ throughput: { level: 'HIGH' }, quality_rating: 'GREEN', id: '1002' });
  });

  it('accepts a template send with the documented success body and records it', async () => {
    const r = await send(promo('+52 1 55 1234 5678', { biz_opaque_callback_data: 'c1:r1', recipient_type: 'individual' }));
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      messaging_product: 'whatsapp',
      contacts: [{ input: '+52 1 55 1234 5678', wa_id: '525512345678' }],
      messages: [{ id: expect.stringMatching(/^wamid\./), message_status: 'accepted' }],
    });
    const [m] = sim.messages();
    expect(m).toMatchObject({ wamid: r.json.messages[0].id, phoneNumberId: PN, to: '5215512345678', template: 'promo', language: 'es', bizOpaque: 'c1:r1' });
    expect(m.components[1].parameters[0].text).toBe('Ana');
    expect(sim.countsByRecipient().get('5215512345678')).toBe(1);
    const second = await send(promo('5491122223333'));
    expect(second.json.messages[0].id).not.toBe(r.json.messages[0].id);
  });

  it('answers 132001 with HTTP 404 for unknown or unapproved templates', async () => {
    for (const name of ['no_existe', 'pendiente']) {
      const r = await send(templateSend('5491122223333', name));
      expect(r.status).toBe(404);
      expect(r.json.error).toMatchObject({
        message: '(#132001) Template name does not exist in the translation', type: 'OAuthException', code: 132001,
        error_data: { messaging_product: 'whatsapp', details: `template name (${name}) does not exist in es` }, fbtrace_id: expect.any(String),
      });
    }
    const wrongLanguage = await send({ ...templateSend('5491122223333', 'simple'), template: { name: 'simple', language: { code: 'en_US' } } });
    expect(wrongLanguage.json.error.code).toBe(132001);
    const paused = await send(templateSend('5491122223333', 'pausada'));
    expect([paused.status, paused.json.error.code]).toEqual([400, 132015]);
    expect(sim.messages()).toHaveLength(0);
  });

  it('answers 132000 when parameter counts do not match', async () => {
    const noHeader = promo('5491122223333');
    noHeader.template.components = [noHeader.template.components[1]];
    const r = await send(noHeader);
    expect(r.status).toBe(400);
    expect(r.json.error).toMatchObject({ code: 132000, message: '(#132000) Number of parameters does not match the expected number of params' });
    expect(r.json.error.error_data.details).toMatch(/header/);
    const tooMany = await send(templateSend('5491122223333', 'simple', ['sobra']));
    expect(tooMany.json.error.code).toBe(132000);
    expect(sim.messages()).toHaveLength(0);
  });

  it('answers 100 for bad payloads and for parameters with new lines', async () => {
    for (const body of [
      { to: '5491122223333', type: 'template', template: { name: 'simple', language: { code: 'es' } } },
      { messaging_product: 'whatsapp', type: 'template', template: { name: 'simple', language: { code: 'es' } } },
      { messaging_product: 'whatsapp', to: '5491122223333', type: 'template', template: { language: { code: 'es' } } },
      { messaging_product: 'whatsapp', to: 'abc', type: 'template', template: { name: 'simple', language: { code: 'es' } } },
    ]) {
      const r = await send(body);
      expect(r.status).toBe(400);
      expect(r.json.error).toMatchObject({ code: 100, type: 'OAuthException', message: '(#100) Invalid parameter' });
    }
    const broken = await fetch(`${sim.graphUrl}/${PN}/messages`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: '{nope' });
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as any).error.code).toBe(100);
    const newline = promo('5491122223333');
    newline.template.components[1].parameters![0] = { type: 'text', text: 'Ana\nMaría' };
    expect((await send(newline)).json.error.code).toBe(100);
    const empty = promo('5491122223333');
    empty.template.components[1].parameters![0] = { type: 'text', text: '' };
    expect((await send(empty)).json.error.code).toBe(131008);
  });

  it('answers 190 with HTTP 401 for a wrong token, and 100/33 for unknown ids', async () => {
    const r = await send(promo('5491122223333'), 'wrong');
    expect(r.status).toBe(401);
    expect(r.json).toEqual({ error: { message: 'Invalid OAuth access token - Cannot parse access token', type: 'OAuthException', code: 190, fbtrace_id: expect.any(String) } });
    const unknown = await send(promo('5491122223333'), TOKEN, '999');
    expect(unknown.status).toBe(400);
    expect(unknown.json.error).toMatchObject({ code: 100, error_subcode: 33 });
    expect((await call(`${sim.url}/nope/${PN}`, { token: TOKEN })).status).toBe(400);
  });

  it('enforces throughput with 130429 and never records more than the limit in any second', async () => {
    sim.setThroughput(PN, 20);
    const results = await Promise.all(Array.from({ length: 60 }, (_, i) => send(promo(`54911000${String(i).padStart(5, '0')}`))));
    const accepted = results.filter((r) => r.status === 200).length;
    const limited = results.filter((r) => r.json.error?.code === 130429);
    expect(accepted).toBeGreaterThanOrEqual(20);
    expect(limited.length).toBeGreaterThan(0);
    expect(limited[0].status).toBe(400);
    expect(limited[0].json.error).toMatchObject({ message: '(#130429) Rate limit hit', error_data: { details: 'Cloud API message throughput has been reached.' } });
    expect(sim.messages()).toHaveLength(accepted);
    expect(sim.timestamps(PN)).toHaveLength(accepted);
    expect(sim.maxInAnyWindow(PN)).toBeLessThanOrEqual(20);
    sim.setThroughput(PN, 80);
  });

  it('sustains a thousand sends per second on one number over keep-alive connections', async () => {
    const pool = new Pool(sim.url, { connections: 32 });
    try {
      const start = performance.now();
      const statuses = await Promise.all(Array.from({ length: 900 }, async (_, i) => {
        const res = await pool.request({
          path: '/v23.0/1002/messages', method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify(promo(`54911100${String(i).padStart(5, '0')}`)),
        });
        await res.body.dump();
        return res.statusCode;
      }));
      expect(statuses.every((s) => s === 200)).toBe(true);
      expect(performance.now() - start).toBeLessThan(2500);
      expect(sim.maxInAnyWindow('1002')).toBeLessThanOrEqual(1000);
    } finally {
      await pool.close();
    }
  });

  it('applies the pair rate limit (131056) and recipient behaviours', async () => {
    const to = '5491133334444';
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await send(templateSend(to, 'simple'))).json);
    expect(statuses.slice(0, 5).every((s) => s.messages)).toBe(true);
    expect(statuses[5].error).toMatchObject({ code: 131056, message: '(#131056) (Business Account, Consumer Account) pair rate limit hit' });
    expect(sim.countsByRecipient().get(to)).toBe(5);
    expect(sim.duplicates()).toEqual([{ to, bizOpaque: null, count: 5 }]);

    sim.setRecipientBehaviour('5491155556666', 'pair_limit');
    const blocked = await send(templateSend('+54 9 11 5555-6666', 'simple'));
    expect([blocked.status, blocked.json.error.code]).toEqual([400, 131056]);
    sim.setRecipientBehaviour('5491155556666', 'ok');
    expect((await send(templateSend('+54 9 11 5555-6666', 'simple'))).status).toBe(200);
  });

  it('reports the same biz_opaque_callback_data sent twice as a duplicate', async () => {
    await send(promo('5491100000001', { biz_opaque_callback_data: 'r-1' }));
    await send(promo('5491100000002', { biz_opaque_callback_data: 'r-1' }));
    await send(promo('5491100000003', { biz_opaque_callback_data: 'r-3' }));
    expect(sim.duplicates()).toEqual([{ to: '5491100000001', bizOpaque: 'r-1', count: 2 }]);
  });

  it('injects 5xx, error codes, invalid tokens, timeouts and lost responses', async () => {
    sim.injectFault({ kind: '5xx' });
    const a = await send(promo('5491100000010'));
    expect([a.status, a.json.error.code]).toEqual([503, 2]);
    sim.injectFault({ kind: 'code', code: 131031, count: 2 });
    const b = await send(promo('5491100000010'));
    expect([b.status, b.json.error.code, b.json.error.message]).toEqual([403, 131031, '(#131031) Business Account locked']);
    expect((await send(promo('5491100000010'))).json.error.code).toBe(131031);
    sim.injectFault({ kind: 'code', code: 131000 });
    expect((await send(promo('5491100000010'))).status).toBe(500);
    sim.injectFault({ kind: 'invalid_token', phoneNumberId: '1002' });
    expect((await send(promo('5491100000010'))).status).toBe(200);
    expect((await send(promo('5491100000011'), TOKEN, '1002')).status).toBe(401);
    expect(sim.messages()).toHaveLength(1);

    sim.injectFault({ kind: 'timeout' });
    await expect(fetch(`${sim.graphUrl}/${PN}/messages`, {
      method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(promo('5491100000012')), signal: AbortSignal.timeout(300),
    })).rejects.toThrow();
    expect(sim.messages()).toHaveLength(1);

    sim.injectFault({ kind: 'lost_response' });
    await expect(send(promo('5491100000013', { biz_opaque_callback_data: 'lost-1' }))).rejects.toThrow();
    expect(sim.messages().map((m) => m.bizOpaque)).toContain('lost-1');
    expect((await send(promo('5491100000014'))).status).toBe(200);
  });

  it('sends text only inside the 24 h customer-service window', async () => {
    const text = { messaging_product: 'whatsapp', to: '5491177778888', type: 'text', text: { body: 'Hola' } };
    const outside = await send(text);
    expect([outside.status, outside.json.error.code]).toEqual([400, 131047]);
    await sim.sendInbound({ phoneNumberId: PN, from: '5491177778888', text: 'Hola' });
    const inside = await send(text);
    expect(inside.status).toBe(200);
    expect(inside.json.messages[0].message_status).toBeUndefined();
  });
});
