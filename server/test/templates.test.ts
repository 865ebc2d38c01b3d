import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NUMBER, createAccount, insertKommoAccount, startWhatsAppTestBed, type WhatsAppTestBed } from './helpers/whatsapp-fixtures';
import { rowsOf } from '../src/db/sql';

let bed: WhatsAppTestBed;
let owner: { headers: { authorization: string }; userId: number };
let stranger: { headers: { authorization: string }; userId: number };
let accountId: number;

const PAGED_TEMPLATES = 230; // more than two Graph pages of 100

beforeAll(async () => {
  bed = await startWhatsAppTestBed({
    templates: [
      { wabaId: NUMBER.wabaId, name: 'bienvenida', language: 'es', category: 'UTILITY', components: [{ type: 'BODY', text: 'Hola {{1}}, gracias por elegirnos.', example: { body_text: [['Ana']] } }] },
      {
        wabaId: NUMBER.wabaId,
        name: 'promo_mensual',
        language: 'es',
        category: 'MARKETING',
        components: [
          { type: 'HEADER', format: 'TEXT', text: 'Oferta {{1}}', example: { header_text: ['marzo'] } },
          { type: 'BODY', text: 'Hola {{1}}, este mes tu plan {{2}} tiene 20% de descuento.', example: { body_text: [['Ana', 'Pro']] } },
          { type: 'FOOTER', text: 'Responde BAJA para no recibir más' },
        ],
      },
      { wabaId: NUMBER.wabaId, name: 'recordatorio_pago', language: 'es', category: 'UTILITY', components: [{ type: 'BODY', text: 'Tu pago vence pronto.' }] },
      { wabaId: NUMBER.wabaId, name: 'vieja', language: 'en', category: 'MARKETING', status: 'REJECTED', components: [{ type: 'BODY', text: 'Old one' }] },
      ...Array.from({ length: PAGED_TEMPLATES }, (_, i) => ({
        wabaId: NUMBER.wabaId,
        name: `relleno_${i}`,
        language: 'es',
        category: 'UTILITY' as const,
        components: [{ type: 'BODY', text: `Mensaje ${i}` }],
      })),
    ],
    rejectTemplatesMatching: /rechaz/,
  });
  owner = await bed.t.signUp();
  stranger = await bed.t.signUp();
  accountId = (await createAccount(bed.t, owner.headers)).id;
});
afterAll(() => bed.close());

type Headers = { authorization: string };
const call = (method: 'GET' | 'POST' | 'DELETE', url: string, headers: Headers, payload?: object) =>
  bed.t.app.inject({ method, url: `/api/templates${url}`, headers, payload });
const listTemplates = async () =>
  (await call('GET', `/account/${accountId}`, owner.headers)).json() as Array<{ id: number; name: string; language: string; [k: string]: unknown }>;
const byName = async (name: string) => (await listTemplates()).find((t) => t.name === name);

const createPayload = (overrides: Record<string, unknown> = {}) => ({
  whatsapp_account_id: accountId,
  name: 'aviso_envio',
  language: 'es',
  category: 'utility',
  components: [
    { type: 'HEADER', format: 'TEXT', text: '  Pedido {{1}}  ' },
    { type: 'BODY', text: 'Hola {{1}}, tu pedido {{2}} sale hoy.' },
    { type: 'FOOTER', text: 'Gracias por tu compra' },
  ],
  templateSamples: { header: ['#123'], body: ['Ana', '566701'], footer: [] },
  ...overrides,
});

describe('sync', () => {
  it('pages through every template at Meta and upserts it', async () => {
    const res = await call('POST', '/sync', owner.headers, { whatsapp_account_id: accountId });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true, synced: PAGED_TEMPLATES + 4, updated: 0, deleted: 0, errors: [] });

    const promo = await byName('promo_mensual');
    expect(promo).toMatchObject({ language: 'es', category: 'marketing', status: 'approved', has_variables: true, rejection_reason: null });
    expect(promo!.components).toEqual([
      { type: 'HEADER', format: 'TEXT', text: 'Oferta {{1}}', example: { header_text: ['marzo'] } },
      { type: 'BODY', text: 'Hola {{1}}, este mes tu plan {{2}} tiene 20% de descuento.', example: { body_text: [['Ana', 'Pro']] } },
      { type: 'FOOTER', text: 'Responde BAJA para no recibir más' },
    ]);
    expect(await byName('recordatorio_pago')).toMatchObject({ has_variables: false, category: 'utility' });
    expect(await byName('vieja')).toMatchObject({ status: 'rejected', language: 'en' });
  });

  it('reports nothing new on a second sync, and removes what Meta deleted', async () => {
    const again = await call('POST', '/sync', owner.headers, { whatsapp_account_id: accountId });
    expect(again.json()).toMatchObject({ synced: 0, updated: 0, deleted: 0 });

    await fetch(`${bed.sim.graphUrl}/${NUMBER.wabaId}/message_templates?name=relleno_7`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${NUMBER.token}` },
    });
    bed.sim.addTemplate({ wabaId: NUMBER.wabaId, name: 'nueva', language: 'es', category: 'UTILITY', components: [{ type: 'BODY', text: 'Nueva' }] });
    const third = await call('POST', '/sync', owner.headers, { whatsapp_account_id: accountId });
    expect(third.json()).toMatchObject({ synced: 1, updated: 0, deleted: 1, errors: [] });
    expect(await byName('relleno_7')).toBeUndefined();
    expect(await byName('nueva')).toBeDefined();
  });

  it('validates the body and the account, and answers 404 for another user’s account', async () => {
    const missing = await call('POST', '/sync', owner.headers, {});
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error).toMatch(/whatsapp_account_id/);
    const foreign = await call('POST', '/sync', stranger.headers, { whatsapp_account_id: accountId });
    expect(foreign.statusCode).toBe(404);
    const list = await call('GET', `/account/${accountId}`, stranger.headers);
    expect(list.statusCode).toBe(404);
    const status = await call('GET', `/account/${accountId}/status`, stranger.headers);
    expect(status.statusCode).toBe(404);
  });

  it('gives Meta’s errors to the operator in Spanish (bad token, rate limit)', async () => {
    // A token that was valid when saved (ownership is verified then) and was revoked since.
    bed.sim.addNumber({ ...NUMBER, phoneNumberId: '1009', token: 'tok-1009' });
    const bad = await createAccount(bed.t, owner.headers, { phone_number_id: '1009', access_token: 'tok-1009' });
    await rowsOf(bed.t.ctx.db,
      sql`update whatsapp_accounts set access_token_enc = ${bed.t.ctx.secrets.seal('caducado')} where id = ${bad.id}`,
    );
    const res = await call('POST', '/sync', owner.headers, { whatsapp_account_id: bad.id });
    expect(res.statusCode).toBe(502);
    expect(res.json().error).toMatch(/^Token de acceso inválido o expirado\. \(Meta #190/);

    bed.sim.configure({ managementHourlyLimit: 0 });
    try {
      const limited = await call('POST', '/sync', owner.headers, { whatsapp_account_id: accountId });
      expect(limited.statusCode).toBe(429);
      expect(limited.json().error).toMatch(/límite de llamadas de Meta.*#80008/);
    } finally {
      bed.sim.configure({ managementHourlyLimit: 1_000_000 });
    }

    // sync-all goes on with the other accounts and reports each one.
    const all = await call('POST', '/sync-all', owner.headers);
    expect(all.statusCode).toBe(200);
    const body = all.json();
    expect(body.success).toBe(false);
    expect(body.results).toHaveLength(2);
    expect(body.results.find((r: { whatsapp_account_id: number }) => r.whatsapp_account_id === accountId)).toMatchObject({
      success: true,
      synced: 0,
      updated: 0,
    });
    const failed = body.results.find((r: { whatsapp_account_id: number }) => r.whatsapp_account_id === bad.id);
    expect(failed).toMatchObject({ success: false, account_name: 'Cuenta Principal' });
    expect(failed.error).toMatch(/Token de acceso inválido/);
    await bed.t.app.inject({ method: 'DELETE', url: `/api/whatsapp-accounts/${bad.id}`, headers: owner.headers });
  });

  it('sync-all needs at least one account', async () => {
    const res = await call('POST', '/sync-all', stranger.headers);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('No hay cuentas de WhatsApp disponibles');
  });
});

describe('reading templates', () => {
  it('gets one template, its variables and the account’s status summary; others get 404', async () => {
    const promo = (await byName('promo_mensual'))!;
    const one = await call('GET', `/${promo.id}`, owner.headers);
    expect(one.json()).toMatchObject({ id: promo.id, name: 'promo_mensual', whatsapp_account_id: accountId });
    const vars = await call('GET', `/${promo.id}/variables`, owner.headers);
    expect(vars.json().variables.map((v: { key: string }) => v.key)).toEqual(['header_variable_1', 'variable_1', 'variable_2']);
    const status = (await call('GET', `/account/${accountId}/status`, owner.headers)).json();
    expect(status.total).toBe(PAGED_TEMPLATES + 4);
    expect(status.by_status).toEqual({ approved: PAGED_TEMPLATES + 3, rejected: 1 });
    for (const url of [`/${promo.id}`, `/${promo.id}/variables`]) {
      expect((await call('GET', url, stranger.headers)).statusCode).toBe(404);
    }
    expect((await call('GET', '/999999', owner.headers)).statusCode).toBe(404);
    expect((await call('GET', '/nope', owner.headers)).statusCode).toBe(400);
  });

  it('lists the synced Kommo custom fields of the user’s Kommo account only', async () => {
    const kommoId = await insertKommoAccount(bed.t, owner.userId);
    await rowsOf(bed.t.ctx.db, sql`
      insert into kommo_custom_fields (account_id, user_id, field_id, name, type, code) values
        (${kommoId}, ${owner.userId}, 11, 'Ciudad', 'text', null), (${kommoId}, ${owner.userId}, 12, 'Plan', 'select', null)`);
    const res = await call('GET', `/kommo/${kommoId}/custom-fields`, owner.headers);
    expect(res.json()).toEqual([
      { id: 11, name: 'Ciudad', type: 'text' },
      { id: 12, name: 'Plan', type: 'select' },
    ]);
    expect((await call('GET', `/kommo/${kommoId}/custom-fields`, stranger.headers)).statusCode).toBe(404);
  });
});

describe('creating a template', () => {
  it('validates as spec §5', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ name: 'con espacio' }, /Solo letras, números y guiones bajos/],
      [{ name: 'acentuación' }, /Solo letras, números y guiones bajos/],
      [{ components: [{ type: 'BODY', text: '   ' }] }, /El texto del cuerpo es requerido/],
      [{ components: [{ type: 'HEADER', text: 'Solo encabezado' }] }, /El texto del cuerpo es requerido/],
      [{ components: [{ type: 'BODY', text: 'x'.repeat(1025) }] }, /cuerpo admite hasta 1024/],
      [{ components: [{ type: 'HEADER', text: 'x'.repeat(61) }, { type: 'BODY', text: 'ok' }] }, /encabezado admite hasta 60/],
      [{ components: [{ type: 'BODY', text: 'ok' }, { type: 'FOOTER', text: 'x'.repeat(61) }] }, /pie de página admite hasta 60/],
      [{ components: [{ type: 'BODY', text: 'Hola {{2}} y {{1}}' }], templateSamples: { header: [], body: ['a', 'b'], footer: [] } }, /consecutivamente/],
      [{ components: [{ type: 'BODY', text: 'Hola {{1}} y {{3}}' }], templateSamples: { header: [], body: ['a', 'b'], footer: [] } }, /consecutivamente/],
      [{ components: [{ type: 'BODY', text: 'Hola {{1}}, {{2}} ok' }], templateSamples: { header: [], body: ['a'], footer: [] } }, /Falta el valor de ejemplo de \{\{2\}\} del cuerpo/],
      [{ templateSamples: { header: [], body: ['Ana', '1'], footer: [] } }, /Falta el valor de ejemplo de \{\{1\}\} del encabezado/],
      [{ components: [{ type: 'BODY', text: 'ok' }, { type: 'FOOTER', text: 'Pie {{1}}' }] }, /pie de página no admite variables/],
      [{ language: 'de' }, /Idioma inválido/],
      [{ category: 'promo' }, /Categoría inválida/],
      [{ extra: 1 }, /.+/],
    ];
    for (const [override, message] of cases) {
      const res = await call('POST', '/create', owner.headers, createPayload(override));
      expect(res.statusCode, JSON.stringify(override)).toBe(400);
      expect(res.json().error).toMatch(message);
    }
  });

  it('stores trimmed texts with examples, submits to Meta and reports success', async () => {
    const res = await call('POST', '/create', owner.headers, createPayload({ name: 'Aviso_Envio', category: 'UTILITY' }));
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body.success).toBe(true);
    expect(body.message).toBe('Plantilla creada y enviada a Facebook para aprobación exitosamente');
    expect(body.submission).toEqual({ success: true, message: body.message });
    expect(body.template).toMatchObject({ name: 'aviso_envio', language: 'es', category: 'utility', status: 'pending', submission_error: null });
    expect(body.template.meta_id).toMatch(/^\d+$/);
    const atMeta = bed.sim.templatesOf(NUMBER.wabaId).find((t) => t.name === 'aviso_envio');
    expect(atMeta.id).toBe(body.template.meta_id);
    expect(atMeta.components).toEqual([
      { type: 'HEADER', format: 'TEXT', text: 'Pedido {{1}}', example: { header_text: ['#123'] } },
      { type: 'BODY', text: 'Hola {{1}}, tu pedido {{2}} sale hoy.', example: { body_text: [['Ana', '566701']] } },
      { type: 'FOOTER', text: 'Gracias por tu compra' },
    ]);
    const dup = await call('POST', '/create', owner.headers, createPayload());
    expect(dup.statusCode).toBe(409);
  });

  it('drops a blank header/footer and submits pt as pt_BR', async () => {
    const res = await call('POST', '/create', owner.headers, createPayload({
      name: 'solo_cuerpo',
      language: 'pt',
      components: [{ type: 'HEADER', format: 'TEXT', text: '   ' }, { type: 'BODY', text: 'Olá {{1}}, tudo bem?' }, { type: 'FOOTER', text: '' }],
      templateSamples: { header: [], body: ['Ana'], footer: [] },
    }));
    expect(res.json()).toMatchObject({ success: true, template: { language: 'pt_BR' } });
    expect(res.json().template.components.map((c: { type: string }) => c.type)).toEqual(['BODY']);
  });

  it('shows a template Meta refused as rejected, with Meta’s reason, and resubmits it later', async () => {
    const refused = await call('POST', '/create', owner.headers, createPayload({
      name: 'empieza_con_variable',
      components: [{ type: 'BODY', text: '{{1}} tu pedido sale hoy' }],
      templateSamples: { header: [], body: ['Ana'], footer: [] },
    }));
    expect(refused.statusCode).toBe(201);
    const body = refused.json();
    expect(body.success).toBe(false);
    expect(body.message).toMatch(/^Meta rechazó la plantilla\. \(Meta #100\/2388299: /);
    // A refusal reads `rejected` with Meta's reason, not `draft`.
    expect(body.template).toMatchObject({ status: 'rejected', meta_id: null, rejection_reason: body.message, submission_error: null });
    const again = await call('POST', `/${body.template.id}/submit`, owner.headers);
    expect(again.json()).toMatchObject({ success: false, template: { status: 'rejected' } });

    bed.sim.configure({ managementHourlyLimit: 0 });
    const limited = await call('POST', '/create', owner.headers, createPayload({ name: 'limitada' }));
    bed.sim.configure({ managementHourlyLimit: 1_000_000 });
    // A rate limit is not a refusal: the template stays a draft, with the error to retry on.
    expect(limited.json()).toMatchObject({ success: false, template: { status: 'draft', rejection_reason: null } });
    expect(limited.json().template.submission_error).toBe(limited.json().message);
    expect(limited.json().message).toMatch(/#80008/);
    const resubmitted = await call('POST', `/${limited.json().template.id}/submit`, owner.headers);
    expect(resubmitted.statusCode).toBe(200);
    expect(resubmitted.json()).toMatchObject({ success: true, template: { status: 'pending', submission_error: null } });
    const twice = await call('POST', `/${limited.json().template.id}/submit`, owner.headers);
    expect(twice.statusCode).toBe(409);
    expect((await call('POST', `/${limited.json().template.id}/submit`, stranger.headers)).statusCode).toBe(404);
  });

  it('refuses another user’s WhatsApp or Kommo account', async () => {
    const res = await call('POST', '/create', stranger.headers, createPayload({ name: 'ajena' }));
    expect(res.statusCode).toBe(404);
    const kommoOfStranger = await insertKommoAccount(bed.t, stranger.userId, 'otro');
    const kommo = await call('POST', '/create', owner.headers, createPayload({ name: 'kommo_ajeno', kommo_account_id: kommoOfStranger }));
    expect(kommo.statusCode).toBe(404);
  });
});

describe('deleting a template', () => {
  it('deletes at Meta by name and hsm_id, then locally', async () => {
    bed.sim.addTemplate({ wabaId: NUMBER.wabaId, name: 'doble', language: 'en', category: 'UTILITY', components: [{ type: 'BODY', text: 'Hi' }] });
    bed.sim.addTemplate({ wabaId: NUMBER.wabaId, name: 'doble', language: 'es', category: 'UTILITY', components: [{ type: 'BODY', text: 'Hola' }] });
    await call('POST', '/sync', owner.headers, { whatsapp_account_id: accountId });
    const spanish = (await listTemplates()).find((t) => t.name === 'doble' && t.language === 'es')!;
    expect((await call('DELETE', `/${spanish.id}`, stranger.headers)).statusCode).toBe(404);
    const res = await call('DELETE', `/${spanish.id}`, owner.headers);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ success: true });
    const atMeta = bed.sim.templatesOf(NUMBER.wabaId).filter((t) => t.name === 'doble');
    expect(atMeta.map((t) => t.language)).toEqual(['en']);
    expect((await call('GET', `/${spanish.id}`, owner.headers)).statusCode).toBe(404);
  });

  it('keeps the local copy when Meta refuses, and deletes it when Meta no longer has it', async () => {
    const target = (await byName('relleno_8'))!;
    bed.sim.configure({ managementHourlyLimit: 0 });
    const limited = await call('DELETE', `/${target.id}`, owner.headers);
    bed.sim.configure({ managementHourlyLimit: 1_000_000 });
    expect(limited.statusCode).toBe(429);
    expect(limited.json().error).toMatch(/80008/);
    expect((await call('GET', `/${target.id}`, owner.headers)).statusCode).toBe(200);

    await fetch(`${bed.sim.graphUrl}/${NUMBER.wabaId}/message_templates?name=relleno_8`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${NUMBER.token}` },
    });
    const gone = await call('DELETE', `/${target.id}`, owner.headers);
    expect(gone.statusCode).toBe(200);
    expect((await call('GET', `/${target.id}`, owner.headers)).statusCode).toBe(404);
  });

  it('deletes a draft Meta never accepted without calling Meta', async () => {
    const draft = (await byName('empieza_con_variable'))!;
    bed.sim.configure({ managementHourlyLimit: 0 });
    try {
      const res = await call('DELETE', `/${draft.id}`, owner.headers);
      expect(res.statusCode).toBe(200);
    } finally {
      bed.sim.configure({ managementHourlyLimit: 1_000_000 });
    }
  });
});
