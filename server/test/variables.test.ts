import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSendComponents } from '../src/services/variables/render';
import { assertTemplateUsable } from '../src/services/variables/template-readiness';
import { NUMBER, createAccount, insertKommoAccount, startWhatsAppTestBed, type WhatsAppTestBed } from './helpers/whatsapp-fixtures';
import { rowsOf } from '../src/db/sql';

let bed: WhatsAppTestBed;
let owner: { headers: { authorization: string }; userId: number };
let stranger: { headers: { authorization: string }; userId: number };
let accountId: number;
let kommoId: number;
let promoId: number;
let plainId: number;
let contactId: number;
let strangerContactId: number;

const PROMO = [
  { type: 'HEADER', format: 'TEXT', text: 'Oferta {{1}}', example: { header_text: ['marzo'] } },
  { type: 'BODY', text: 'Hola {{1}}, tu plan {{2}} en {{3}} tiene descuento.', example: { body_text: [['Ana', 'Pro', 'Lima']] } },
  { type: 'FOOTER', text: 'Responde BAJA para salir' },
];

beforeAll(async () => {
  bed = await startWhatsAppTestBed({
    templates: [
      { wabaId: NUMBER.wabaId, name: 'promo', language: 'es', category: 'MARKETING', components: PROMO },
      { wabaId: NUMBER.wabaId, name: 'simple', language: 'es', category: 'UTILITY', components: [{ type: 'BODY', text: 'Sin variables.' }] },
    ],
  });
  owner = await bed.t.signUp();
  stranger = await bed.t.signUp();
  kommoId = await insertKommoAccount(bed.t, owner.userId);
  accountId = (await createAccount(bed.t, owner.headers, { kommo_account_id: kommoId })).id;
  await bed.t.app.inject({ method: 'POST', url: '/api/templates/sync', headers: owner.headers, payload: { whatsapp_account_id: accountId } });
  const list = (await bed.t.app.inject({ method: 'GET', url: `/api/templates/account/${accountId}`, headers: owner.headers })).json();
  promoId = list.find((t: { name: string }) => t.name === 'promo').id;
  plainId = list.find((t: { name: string }) => t.name === 'simple').id;

  await rowsOf(bed.t.ctx.db, sql`
    insert into kommo_custom_fields (account_id, user_id, field_id, name, type, code) values
      (${kommoId}, ${owner.userId}, 1, 'Teléfono', 'multitext', 'PHONE'),
      (${kommoId}, ${owner.userId}, 2, 'Email', 'multitext', 'EMAIL'),
      (${kommoId}, ${owner.userId}, 3, 'Plan', 'select', null),
      (${kommoId}, ${owner.userId}, 4, 'Ciudad', 'text', null)`);
  const [c] = await rowsOf<{ id: number }>(bed.t.ctx.db, sql`
    insert into contacts (user_id, account_id, kommo_id, name, first_name, last_name, phone, email, custom_fields)
    values (${owner.userId}, ${kommoId}, 10, 'Ana Pérez', 'Ana', 'Pérez', '+5491122334455', null,
            ${JSON.stringify({ Plan: 'Pro', Ciudad: '' })}::jsonb) returning id`);
  contactId = Number(c!.id);
  const strangerKommo = await insertKommoAccount(bed.t, stranger.userId, 'ajeno');
  const [s] = await rowsOf<{ id: number }>(bed.t.ctx.db, sql`
    insert into contacts (user_id, account_id, kommo_id, name) values (${stranger.userId}, ${strangerKommo}, 10, 'Otro') returning id`);
  strangerContactId = Number(s!.id);
});
afterAll(() => bed.close());

type Headers = { authorization: string };
const call = (method: 'GET' | 'POST', url: string, headers: Headers, payload?: object) =>
  bed.t.app.inject({ method, url: `/api/variables${url}`, headers, payload });

const MAPPINGS = [
  { templateVariable: 'header_variable_1', sourceField: 'custom_fields.Plan' },
  { templateVariable: 'variable_1', sourceField: 'first_name' },
  { templateVariable: 'variable_2', sourceField: 'custom_fields.Plan', defaultValue: 'Básico' },
  { templateVariable: 'variable_3', sourceField: 'custom_fields.Ciudad', defaultValue: 'tu ciudad' },
];

describe('available variables', () => {
  it('lists built-ins, the Kommo account’s custom fields (phone and email are built-ins) and, last, the lead’s fields', async () => {
    const res = await call('GET', `/${kommoId}/available`, owner.headers);
    expect(res.statusCode).toBe(200);
    expect(res.json().map((v: { key: string }) => v.key)).toEqual([
      'name',
      'first_name',
      'last_name',
      'phone',
      'email',
      'custom_fields.Ciudad',
      'custom_fields.Plan',
      'lead.name',
      'lead.price',
    ]);
    expect(res.json()[5]).toEqual({ key: 'custom_fields.Ciudad', displayName: 'Ciudad', category: 'custom', description: 'Campo personalizado de Kommo: Ciudad' });
  });

  it('falls back to the field names found in synced contacts', async () => {
    const other = await insertKommoAccount(bed.t, owner.userId, 'sin-campos');
    await rowsOf(bed.t.ctx.db, sql`
      insert into contacts (user_id, account_id, kommo_id, custom_fields) values
        (${owner.userId}, ${other}, 1, ${JSON.stringify({ Origen: 'web' })}::jsonb)`);
    const res = await call('GET', `/${other}/available`, owner.headers);
    expect(res.json().map((v: { key: string }) => v.key)).toContain('custom_fields.Origen');
  });

  it('answers 404 for another user’s Kommo account', async () => {
    expect((await call('GET', `/${kommoId}/available`, stranger.headers)).statusCode).toBe(404);
    expect((await call('GET', '/abc/available', owner.headers)).statusCode).toBe(400);
  });
});

describe('template variables and mappings', () => {
  it('describes the template’s variables and what can fill them', async () => {
    const res = await call('GET', `/template/${promoId}`, owner.headers);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.variables.map((v: { key: string }) => v.key)).toEqual(['header_variable_1', 'variable_1', 'variable_2', 'variable_3']);
    expect(body.availableVariables.map((v: { key: string }) => v.key)).toContain('custom_fields.Plan');
    expect(body.mappings).toEqual([]);
    expect((await call('GET', `/template/${promoId}`, stranger.headers)).statusCode).toBe(404);
  });

  it('refuses mappings for variables the template does not have, or malformed ones', async () => {
    const unknown = await call('POST', `/template/${promoId}/mappings`, owner.headers, { mappings: [{ templateVariable: 'variable_9', sourceField: 'name' }] });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error).toBe('La variable variable_9 no existe en la plantilla');
    const malformed = await call('POST', `/template/${promoId}/mappings`, owner.headers, { mappings: [{ templateVariable: 'x', sourceField: 'name' }] });
    expect(malformed.statusCode).toBe(400);
    const empty = await call('POST', `/template/${promoId}/mappings`, owner.headers, { mappings: [{ templateVariable: 'variable_1', sourceField: ' ' }] });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().error).toMatch(/Selecciona un campo/);
    const foreign = await call('POST', `/template/${promoId}/mappings`, stranger.headers, { mappings: [] });
    expect(foreign.statusCode).toBe(404);
  });

  it('saves, reads back and replaces mappings', async () => {
    const first = await call('POST', `/template/${promoId}/mappings`, owner.headers, { mappings: [{ templateVariable: 'variable_1', sourceField: 'name' }] });
    expect(first.statusCode).toBe(200);
    expect(first.json().message).toBe('Configuración de variables guardada exitosamente');
    const saved = await call('POST', `/template/${promoId}/mappings`, owner.headers, { mappings: MAPPINGS });
    expect(saved.statusCode).toBe(200);
    const read = await call('GET', `/template/${promoId}/mappings`, owner.headers);
    expect(read.json()).toEqual([
      { templateVariable: 'header_variable_1', sourceType: 'contact', sourceField: 'custom_fields.Plan', defaultValue: '' },
      { templateVariable: 'variable_1', sourceType: 'contact', sourceField: 'first_name', defaultValue: '' },
      { templateVariable: 'variable_2', sourceType: 'contact', sourceField: 'custom_fields.Plan', defaultValue: 'Básico' },
      { templateVariable: 'variable_3', sourceType: 'contact', sourceField: 'custom_fields.Ciudad', defaultValue: 'tu ciudad' },
    ]);
    expect((await call('GET', `/template/${promoId}/mappings`, stranger.headers)).statusCode).toBe(404);
  });

  it('previews the processed text from sample data', async () => {
    const res = await call('POST', `/template/${promoId}/preview`, owner.headers, {
      sampleData: { first_name: 'Juan', 'custom_fields.Plan': 'Empresa' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      header: 'Oferta Empresa',
      body: 'Hola Juan, tu plan Empresa en tu ciudad tiene descuento.',
      footer: 'Responde BAJA para salir',
      processedText: 'Oferta Empresa\n\nHola Juan, tu plan Empresa en tu ciudad tiene descuento.\n\nResponde BAJA para salir',
      headerMedia: null,
      buttons: [],
    });
    const direct = await call('POST', `/template/${promoId}/preview`, owner.headers, { sampleData: { variable_1: 'Directo', '2': 'X' } });
    expect(direct.json().body).toBe('Hola Directo, tu plan X en tu ciudad tiene descuento.');
    const bad = await call('POST', `/template/${promoId}/preview`, owner.headers, { sampleData: { a: 5 } });
    expect(bad.statusCode).toBe(400);
    expect((await call('POST', `/template/${promoId}/preview`, stranger.headers, { sampleData: {} })).statusCode).toBe(404);
  });

  it('tests with a real contact: empty fields use the default value', async () => {
    const res = await call('POST', `/template/${promoId}/test`, owner.headers, { contactId });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      contactId,
      header: 'Oferta Pro',
      body: 'Hola Ana, tu plan Pro en tu ciudad tiene descuento.',
      values: { header_variable_1: 'Pro', variable_1: 'Ana', variable_2: 'Pro', variable_3: 'tu ciudad' },
    });
    const foreignContact = await call('POST', `/template/${promoId}/test`, owner.headers, { contactId: strangerContactId });
    expect(foreignContact.statusCode).toBe(404);
    expect(foreignContact.json().error).toBe('Contacto no encontrado');
    expect((await call('POST', `/template/${promoId}/test`, owner.headers, {})).statusCode).toBe(400);
  });
});

describe('template readiness for campaigns', () => {
  it('accepts an approved, fully mapped template of the account and returns its mappings', async () => {
    const { template, mappings } = await assertTemplateUsable(bed.t.ctx.db, owner.userId, promoId, accountId);
    expect(template.name).toBe('promo');
    expect(mappings).toHaveLength(4);
    const components = buildSendComponents(template, mappings, {
      name: 'Ana Pérez',
      first_name: 'Ana',
      last_name: 'Pérez',
      phone: '+5491122334455',
      email: null,
      custom_fields: { Plan: '', Ciudad: 'Lima\nCentro' },
    });
    expect(components).toEqual([
      { type: 'header', parameters: [{ type: 'text', text: ' ' }] },
      {
        type: 'body',
        parameters: [
          { type: 'text', text: 'Ana' },
          { type: 'text', text: 'Básico' },
          { type: 'text', text: 'Lima Centro' },
        ],
      },
    ]);
    // A template without placeholders needs no mapping.
    await expect(assertTemplateUsable(bed.t.ctx.db, owner.userId, plainId, accountId)).resolves.toMatchObject({ mappings: [] });
  });

  it('refuses, with a clear Spanish message, what a campaign cannot use', async () => {
    await call('POST', `/template/${promoId}/mappings`, owner.headers, { mappings: MAPPINGS.slice(1, 2) });
    await expect(assertTemplateUsable(bed.t.ctx.db, owner.userId, promoId, accountId)).rejects.toMatchObject({
      statusCode: 400,
      message: 'La plantilla tiene variables sin configurar: {{1}} (encabezado), {{2}}, {{3}}',
    });
    await expect(assertTemplateUsable(bed.t.ctx.db, owner.userId, promoId, accountId + 1000)).rejects.toMatchObject({
      statusCode: 400,
      message: 'La plantilla no pertenece a la cuenta de WhatsApp seleccionada',
    });
    await expect(assertTemplateUsable(bed.t.ctx.db, stranger.userId, promoId, accountId)).rejects.toMatchObject({ statusCode: 404 });
    await rowsOf(bed.t.ctx.db, sql`update templates set status = 'pending' where id = ${plainId}`);
    await expect(assertTemplateUsable(bed.t.ctx.db, owner.userId, plainId, accountId)).rejects.toMatchObject({
      statusCode: 400,
      message: 'La plantilla no está aprobada',
    });
  });
});
