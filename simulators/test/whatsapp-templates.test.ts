import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startWhatsAppSim, type WhatsAppSim } from '../src/whatsapp/index';
import { call, templateSend } from './helpers/graph';
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver';

const PN = '5001';
const WABA = '6001';
const TOKEN = 'tpl-token';

const body = (text: string, examples?: string[]) => ({ type: 'BODY', text, ...(examples ? { example: { body_text: [examples] } } : {}) });

describe('WhatsApp simulator: templates', () => {
  let sim: WhatsAppSim;
  let hook: WebhookReceiver;
  const templatesUrl = (query = '') => `${sim.graphUrl}/${WABA}/message_templates${query}`;
  const create = (t: Record<string, unknown>) => call(templatesUrl(), { token: TOKEN, body: t });

  beforeAll(async () => {
    hook = await startWebhookReceiver('sim-app-secret');
    sim = await startWhatsAppSim({
      webhookUrl: hook.url,
      // Long enough that the send right after creation surely meets the template still PENDING, even on a loaded machine.
      approvalDelayMs: 600,
      rejectTemplatesMatching: /rechazar/,
      numbers: [{ phoneNumberId: PN, wabaId: WABA, token: TOKEN, displayPhoneNumber: '5491150000000' }],
    });
  });
  afterAll(async () => {
    await sim.close();
    await hook.close();
  });
  beforeEach(() => {
    hook.received.length = 0;
  });

  /**
   * Review happens approvalDelayMs after creation, on a timer: wait until these templates left
   * PENDING (a loaded machine fires timers late) and their status webhooks went out.
   */
  async function reviewed(...names: string[]) {
    await vi.waitFor(() => {
      for (const name of names) expect(sim.templatesOf(WABA).find((t) => t.name === name)?.status).not.toBe('PENDING');
    }, { timeout: 5_000, interval: 20 });
    await sim.flushWebhooks();
  }

  const templateEvents = () => hook.received
    .map((r) => r.body.entry[0])
    .filter((e) => e.changes[0].field === 'message_template_status_update')
    .map((e) => ({ ...e.changes[0].value, time: e.time }));

  it('creates a template as PENDING, approves it after the delay and posts the status update', async () => {
    const r = await create({
      name: 'bienvenida_2025', language: 'es', category: 'UTILITY',
      components: [
        { type: 'HEADER', format: 'TEXT', text: 'Hola {{1}}', example: { header_text: ['Ana'] } },
        body('Gracias {{1}} por elegirnos, tu plan {{2}} ya está activo.', ['Ana', 'Pro']),
        { type: 'FOOTER', text: 'Masivo' },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ id: expect.stringMatching(/^\d+$/), status: 'PENDING', category: 'UTILITY' });
    const pending = await send();
    expect(pending.json.error.code).toBe(132001);

    await reviewed('bienvenida_2025');
    expect(sim.templatesOf(WABA).find((t) => t.name === 'bienvenida_2025').status).toBe('APPROVED');
    expect(templateEvents()).toEqual([{
      event: 'APPROVED', message_template_id: Number(r.json.id), message_template_name: 'bienvenida_2025',
      message_template_language: 'es', reason: 'NONE', message_template_category: 'UTILITY', time: expect.any(Number),
    }]);
    expect(hook.received.every((x) => x.signatureValid)).toBe(true);
    const ok = await send();
    expect(ok.status).toBe(200);

    async function send() {
      return call(`${sim.graphUrl}/${PN}/messages`, { token: TOKEN, body: {
        ...templateSend('5491122223333', 'bienvenida_2025', ['Ana', 'Pro']),
        template: { name: 'bienvenida_2025', language: { code: 'es' }, components: [
          { type: 'header', parameters: [{ type: 'text', text: 'Ana' }] },
          { type: 'body', parameters: [{ type: 'text', text: 'Ana' }, { type: 'text', text: 'Pro' }] }] },
      } });
    }
  });

  it('rejects templates matching rejectTemplatesMatching or with adjacent parameters', async () => {
    const a = await create({ name: 'rechazar_esta', language: 'es', category: 'MARKETING', components: [body('Una oferta especial para vos hoy.')] });
    const b = await create({ name: 'pegadas', language: 'es', category: 'MARKETING', components: [body('Hola {{1}}{{2}} tenemos algo para vos.', ['Ana', 'Pérez'])] });
    expect(a.json.status).toBe('PENDING');
    expect(b.json.status).toBe('PENDING');
    await reviewed('rechazar_esta', 'pegadas');
    const events = templateEvents();
    expect(events).toHaveLength(2);
    for (const e of events) {
      expect(e).toMatchObject({ event: 'REJECTED', reason: 'INVALID_FORMAT', rejection_info: { reason: expect.any(String), recommendation: expect.any(String) } });
    }
    const listed = (await call(templatesUrl('?name=pegadas'), { token: TOKEN })).json.data[0];
    expect(listed).toMatchObject({ name: 'pegadas', status: 'REJECTED', rejected_reason: 'INVALID_FORMAT' });
  });

  it('validates templates at creation with Meta subcodes', async () => {
    const cases: Array<[Record<string, unknown>, number | null]> = [
      [{ name: 'Mayusculas', language: 'es', category: 'UTILITY', components: [body('Texto válido de prueba.')] }, null],
      [{ name: 'sin_body', language: 'es', category: 'UTILITY', components: [{ type: 'FOOTER', text: 'x' }] }, 2388072],
      [{ name: 'largo', language: 'es', category: 'UTILITY', components: [body('a'.repeat(1025))] }, 2388040],
      [{ name: 'cabecera_larga', language: 'es', category: 'UTILITY', components: [{ type: 'HEADER', format: 'TEXT', text: 'h'.repeat(61) }, body('Texto válido.')] }, 2388040],
      [{ name: 'pie_largo', language: 'es', category: 'UTILITY', components: [body('Texto válido.'), { type: 'FOOTER', text: 'f'.repeat(61) }] }, 2388040],
      [{ name: 'sin_ejemplo', language: 'es', category: 'UTILITY', components: [body('Hola {{1}}, bienvenido.')] }, 2388072],
      [{ name: 'saltea', language: 'es', category: 'UTILITY', components: [body('Hola {{1}}, tu código {{3}} vence.', ['a', 'b'])] }, 2388072],
      [{ name: 'al_final', language: 'es', category: 'UTILITY', components: [body('Tu código es {{1}}', ['123'])] }, 2388299],
      [{ name: 'al_inicio', language: 'es', category: 'UTILITY', components: [body('{{1}} es tu código.', ['123'])] }, 2388299],
      [{ name: 'muchas', language: 'es', category: 'UTILITY', components: [body('Hola {{1}} {{2}} {{3}} {{4}} {{5}} ok.', ['a', 'b', 'c', 'd', 'e'])] }, 2388293],
      [{ name: 'pie_variable', language: 'es', category: 'UTILITY', components: [body('Texto válido.'), { type: 'FOOTER', text: 'Chau {{1}}' }] }, 2388073],
      [{ name: 'cabecera_dos', language: 'es', category: 'UTILITY', components: [{ type: 'HEADER', format: 'TEXT', text: '{{1}} y {{2}}', example: { header_text: ['a', 'b'] } }, body('Texto válido.')] }, 2388047],
      [{ name: 'categoria', language: 'es', category: 'OTRA', components: [body('Texto válido.')] }, null],
    ];
    for (const [t, subcode] of cases) {
      const r = await create(t);
      expect(r.status, String(t.name)).toBe(400);
      expect(r.json.error, String(t.name)).toMatchObject({ code: 100, type: 'OAuthException', error_user_msg: expect.any(String), error_user_title: expect.any(String) });
      if (subcode !== null) expect(r.json.error.error_subcode, String(t.name)).toBe(subcode);
    }

    const first = await create({ name: 'unica', language: 'es', category: 'UTILITY', components: [body('Texto válido de prueba.')] });
    expect(first.status).toBe(200);
    const again = await create({ name: 'unica', language: 'es', category: 'UTILITY', components: [body('Otro texto válido.')] });
    expect([again.status, again.json.error.error_subcode]).toEqual([400, 2388024]);
    expect((await create({ name: 'unica', language: 'en', category: 'UTILITY', components: [body('Valid text here.')] })).status).toBe(200);
  });

  it('lists templates with limit and after/before cursors', async () => {
    for (let i = 0; i < 7; i++) sim.addTemplate({ wabaId: '7001', name: `lista_${i}`, language: 'es', category: 'MARKETING', components: [body('Texto de lista.')] });
    sim.addNumber({ phoneNumberId: '7002', wabaId: '7001', token: 'list-token', displayPhoneNumber: '5491150000009' });
    const list = (query: string) => call(`${sim.graphUrl}/7001/message_templates${query}`, { token: 'list-token' });
    const all = await list('');
    expect(all.json.data).toHaveLength(7);
    expect(all.json.paging.next).toBeUndefined();
    expect(all.json.data[0]).toEqual({
      id: expect.any(String), name: 'lista_0', language: 'es', status: 'APPROVED', category: 'MARKETING',
      parameter_format: 'POSITIONAL', components: [body('Texto de lista.')], rejected_reason: 'NONE',
    });

    const names: string[] = [];
    let url: string | undefined = `${sim.graphUrl}/7001/message_templates?limit=3&fields=name,status`;
    let pages = 0;
    while (url) {
      const r = await call(url, { token: 'list-token' });
      pages++;
      names.push(...r.json.data.map((t: any) => t.name));
      expect(Object.keys(r.json.data[0]).sort()).toEqual(['id', 'name', 'status']);
      expect(r.json.paging.cursors).toEqual({ before: expect.any(String), after: expect.any(String) });
      url = r.json.paging.next;
    }
    expect(pages).toBe(3);
    expect(names).toEqual(Array.from({ length: 7 }, (_, i) => `lista_${i}`));

    const second = await list('?limit=3&after=' + (await list('?limit=3')).json.paging.cursors.after);
    const back = await list(`?limit=3&before=${second.json.paging.cursors.before}`);
    expect(back.json.data.map((t: any) => t.name)).toEqual(['lista_0', 'lista_1', 'lista_2']);
    expect((await list('?limit=2&summary=total_count')).json.summary).toEqual({ total_count: 7 });
    expect((await list('?after=garbage!')).status).toBe(400);
  });

  it('deletes by name (all languages) or by name and hsm_id', async () => {
    sim.addTemplate({ wabaId: '8001', name: 'borrar', language: 'es', category: 'UTILITY', components: [body('Uno.')] });
    sim.addTemplate({ wabaId: '8001', name: 'borrar', language: 'en', category: 'UTILITY', components: [body('One.')] });
    sim.addTemplate({ wabaId: '8001', name: 'uno_solo', language: 'es', category: 'UTILITY', components: [body('Uno.')] });
    sim.addTemplate({ wabaId: '8001', name: 'uno_solo', language: 'en', category: 'UTILITY', components: [body('One.')] });
    sim.addNumber({ phoneNumberId: '8002', wabaId: '8001', token: 'del-token', displayPhoneNumber: '5491150000008' });
    const del = (query: string) => call(`${sim.graphUrl}/8001/message_templates${query}`, { token: 'del-token', method: 'DELETE' });

    expect((await del('?name=borrar')).json).toEqual({ success: true });
    expect(sim.templatesOf('8001').map((t) => `${t.name}/${t.language}`)).toEqual(['uno_solo/es', 'uno_solo/en']);
    const en = sim.templatesOf('8001').find((t) => t.language === 'en');
    expect((await del(`?name=uno_solo&hsm_id=${en.id}`)).json).toEqual({ success: true });
    expect(sim.templatesOf('8001').map((t) => `${t.name}/${t.language}`)).toEqual(['uno_solo/es']);
    const missing = await del('?name=no_existe');
    expect([missing.status, missing.json.error.code]).toEqual([400, 100]);
    expect((await del('')).status).toBe(400);
  });

  it('limits management calls per WABA per hour with 80008', async () => {
    const limited = await startWhatsAppSim({
      managementHourlyLimit: 3,
      numbers: [{ phoneNumberId: '9001', wabaId: '9000', token: 't', displayPhoneNumber: '5491150000007' }],
    });
    try {
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push(await call(`${limited.graphUrl}/9000/message_templates`, { token: 't' }));
      expect(statuses.slice(0, 3).map((r) => r.status)).toEqual([200, 200, 200]);
      expect(statuses[3].status).toBe(400);
      expect(statuses[3].json.error).toMatchObject({ code: 80008 });
      expect((await call(`${limited.graphUrl}/9001`, { token: 't' })).json.error.code).toBe(80008);
    } finally {
      await limited.close();
    }
  });

  it('checks the token on WABA routes', async () => {
    const r = await call(templatesUrl(), { token: 'wrong' });
    expect([r.status, r.json.error.code]).toEqual([401, 190]);
  });
});
