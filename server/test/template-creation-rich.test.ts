import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWhatsAppSim, type WhatsAppSim } from '@masivo/simulators/whatsapp';
import { createTestApp, type TestApp } from './helpers/app';
import { createAccount, NUMBER } from './helpers/whatsapp-fixtures';
import { CREATE_IMAGE_URL_REQUEST, CREATE_NAMED_REQUEST } from './fixtures/meta-templates';

/** Rich templates: created with a media header, buttons and named placeholders. */
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 1)]);

let sim: WhatsAppSim;
let t: TestApp;
let headers: { authorization: string };
let accountId = 0;

const sample = (body: Buffer, contentType: string, format = 'IMAGE', account = accountId, h = headers) =>
  t.app.inject({ method: 'POST', url: `/api/templates/media-sample?whatsapp_account_id=${account}&format=${format}`, headers: { ...h, 'content-type': contentType }, payload: body });
const create = (payload: object) => t.app.inject({ method: 'POST', url: '/api/templates/create', headers, payload });
const stored = async () => (await t.app.inject({ method: 'GET', url: `/api/templates/account/${accountId}`, headers })).json() as Array<{ name: string }>;
const atMeta = (name: string) => sim.templatesOf(NUMBER.wabaId).find((x: { name: string }) => x.name === name);

beforeAll(async () => {
  sim = await startWhatsAppSim({ approvalDelayMs: 60_000, numbers: [NUMBER] });
  t = await createTestApp({ WHATSAPP_GRAPH_URL: sim.graphUrl, WHATSAPP_APP_ID: sim.appId });
  headers = (await t.signUp()).headers;
  accountId = (await createAccount(t, headers)).id;
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

describe('media header samples go through Meta’s Resumable Upload API', () => {
  it('returns the handle Meta issued for the bytes', async () => {
    const res = await sample(PNG, 'image/png');
    expect(res.statusCode).toBe(200);
    expect(res.json().handle).toMatch(/^4::/);
  });

  it('refuses a type that does not match the header, content that is not what it says, a file over the limit, in Spanish', async () => {
    const gif = await sample(Buffer.from('GIF89a....'), 'image/gif');
    expect(gif.statusCode).toBe(400);
    expect(gif.json().error).toMatch(/^El archivo de ejemplo debe ser imagen \(JPEG o PNG, hasta 5 MB\)/);
    const pdfAsVideo = await sample(Buffer.from('%PDF-1.4 ...'), 'application/pdf', 'VIDEO');
    expect(pdfAsVideo.statusCode).toBe(400);
    const fake = await sample(Buffer.from('not really a png'), 'image/png');
    expect(fake.json()).toEqual({ error: 'El contenido del archivo no corresponde a imagen (JPEG o PNG, hasta 5 MB)' });
    const big = await sample(Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024)]), 'image/png');
    expect(big.statusCode).toBe(400);
    expect(big.json().error).toBe('El archivo de ejemplo supera el límite de 5 MB');
    const json = await t.app.inject({ method: 'POST', url: `/api/templates/media-sample?whatsapp_account_id=${accountId}&format=IMAGE`, headers, payload: { a: 1 } });
    expect(json.statusCode).toBe(400);
  });

  it('only uploads for the caller’s own account', async () => {
    const other = await t.signUp();
    const res = await sample(PNG, 'image/png', 'IMAGE', accountId, other.headers);
    expect(res.statusCode).toBe(404);
  });

  it('needs WHATSAPP_APP_ID', async () => {
    const bare = await createTestApp({ WHATSAPP_GRAPH_URL: sim.graphUrl });
    try {
      const h = (await bare.signUp()).headers;
      const id = (await createAccount(bare, h)).id;
      const res = await bare.app.inject({ method: 'POST', url: `/api/templates/media-sample?whatsapp_account_id=${id}&format=IMAGE`, headers: { ...h, 'content-type': 'image/png' }, payload: PNG });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatch(/WHATSAPP_APP_ID/);
    } finally {
      await bare.close();
    }
  });
});

describe('the payload sent to Meta matches its template-creation reference', () => {
  it('image header, footer, URL button with a suffix, phone and quick reply', async () => {
    const { handle } = (await sample(PNG, 'image/png')).json();
    const res = await create({
      whatsapp_account_id: accountId,
      name: 'seasonal_promotion',
      language: 'en',
      category: 'marketing',
      components: [
        { type: 'HEADER', format: 'IMAGE', header_handle: handle },
        { type: 'BODY', text: 'Shop now through {{1}} and use code {{2}} to get {{3}} off of all merchandise.' },
        { type: 'FOOTER', text: 'Use the buttons below to manage your marketing subscriptions' },
        {
          type: 'BUTTONS',
          buttons: [
            { type: 'URL', text: 'Shop Now', url: 'https://www.luckyshrub.com/shop?promo={{1}}', example: 'summer2023' },
            { type: 'PHONE_NUMBER', text: 'Call us', phone_number: '+1 555 005 1310' },
            { type: 'QUICK_REPLY', text: 'Unsubscribe from Promos' },
          ],
        },
      ],
      templateSamples: { header: [], body: ['the end of August', '25OFF', '25%'], footer: [] },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ success: true, template: { status: 'pending', parameter_format: 'POSITIONAL' } });
    const expected = CREATE_IMAGE_URL_REQUEST(handle);
    const received = atMeta('seasonal_promotion');
    expect(received.components).toEqual(expected.components);
    expect(received.parameter_format).toBe(expected.parameter_format);
    expect(received.category).toBe(expected.category);
  });

  it('named parameters with a coupon button', async () => {
    const res = await create({
      whatsapp_account_id: accountId,
      name: 'order_confirmation',
      language: 'en',
      category: 'utility',
      parameter_format: 'NAMED',
      components: [
        { type: 'BODY', text: 'Thank you, {{first_name}}! Your order number is {{order_number}}.' },
        { type: 'BUTTONS', buttons: [{ type: 'COPY_CODE', example: '250FF' }] },
      ],
      templateSamples: { body: ['Pablo', '860198-230332'] },
    });
    expect(res.statusCode).toBe(201);
    const received = atMeta('order_confirmation');
    expect(received.components).toEqual(CREATE_NAMED_REQUEST.components);
    expect(received.parameter_format).toBe('NAMED');
    // The slots the mapping dialog offers follow the stored template.
    const id = res.json().template.id;
    const slots = (await t.app.inject({ method: 'GET', url: `/api/variables/template/${id}`, headers })).json().variables.map((s: { key: string }) => s.key);
    expect(slots).toEqual(['variable_first_name', 'variable_order_number', 'button_0']);
  });
});

describe('every rule is a Spanish 400 and nothing is half-saved', () => {
  const base = { whatsapp_account_id: 0, name: 'regla', components: [] as object[] };
  const cases: Array<[string, object, RegExp]> = [
    ['three URL buttons', { components: [{ type: 'BODY', text: 'Hola' }, { type: 'BUTTONS', buttons: [1, 2, 3].map((i) => ({ type: 'URL', text: `Web ${i}`, url: `https://a.example/${i}` })) }] }, /como máximo 2 botones de enlace/],
    ['eleven buttons', { components: [{ type: 'BODY', text: 'Hola' }, { type: 'BUTTONS', buttons: Array.from({ length: 11 }, (_, i) => ({ type: 'QUICK_REPLY', text: `Opción ${i}` })) }] }, /hasta 10 botones/],
    ['two phone buttons', { components: [{ type: 'BODY', text: 'Hola' }, { type: 'BUTTONS', buttons: [{ type: 'PHONE_NUMBER', text: 'A', phone_number: '+5491100000000' }, { type: 'PHONE_NUMBER', text: 'B', phone_number: '+5491100000001' }] }] }, /como máximo 1 botón de llamada/],
    ['two copy-code buttons', { components: [{ type: 'BODY', text: 'Hola' }, { type: 'BUTTONS', buttons: [{ type: 'COPY_CODE', example: 'A1' }, { type: 'COPY_CODE', example: 'B2' }] }] }, /como máximo 1 botón de copiar código/],
    ['a non-https URL', { components: [{ type: 'BODY', text: 'Hola' }, { type: 'BUTTONS', buttons: [{ type: 'URL', text: 'Web', url: 'http://a.example/x' }] }] }, /debe ser un enlace https:\/\//],
    ['a URL variable not at the end', { components: [{ type: 'BODY', text: 'Hola' }, { type: 'BUTTONS', buttons: [{ type: 'URL', text: 'Web', url: 'https://a.example/{{1}}/x' }] }] }, /solo admite la variable \{\{1\}\} al final/],
    ['a URL suffix without example', { components: [{ type: 'BODY', text: 'Hola' }, { type: 'BUTTONS', buttons: [{ type: 'URL', text: 'Web', url: 'https://a.example/{{1}}' }] }] }, /Falta el valor de ejemplo del final de la URL/],
    ['a named placeholder with invalid characters', { parameter_format: 'NAMED', components: [{ type: 'BODY', text: 'Hola {{Nombre-Cliente}}' }] }, /no es válida: use minúsculas/],
    ['a number in a named template', { parameter_format: 'NAMED', components: [{ type: 'BODY', text: 'Hola {{1}}' }], templateSamples: { body: ['Ana'] } }, /debe usar \{\{nombre\}\}/],
    ['a named placeholder without example', { parameter_format: 'NAMED', components: [{ type: 'BODY', text: 'Hola {{first_name}}' }] }, /Falta el valor de ejemplo de \{\{first_name\}\}/],
    ['a media header without sample', { components: [{ type: 'HEADER', format: 'IMAGE' }, { type: 'BODY', text: 'Hola' }] }, /Sube un archivo de ejemplo/],
    ['an unknown button type', { components: [{ type: 'BODY', text: 'Hola' }, { type: 'BUTTONS', buttons: [{ type: 'OTP', text: 'x' }] }] }, /Tipo de botón inválido/],
    ['a button without text', { components: [{ type: 'BODY', text: 'Hola' }, { type: 'BUTTONS', buttons: [{ type: 'QUICK_REPLY', text: ' ' }] }] }, /El texto del botón 1 es requerido/],
    ['scattered quick replies', { components: [{ type: 'BODY', text: 'Hola' }, { type: 'BUTTONS', buttons: [{ type: 'QUICK_REPLY', text: 'Sí' }, { type: 'URL', text: 'Web', url: 'https://a.example' }, { type: 'QUICK_REPLY', text: 'No' }] }] }, /respuestas rápidas deben ir juntas/],
  ];
  it.each(cases)('%s', async (_name, input, message) => {
    const before = (await stored()).length;
    const sentBefore = sim.templatesOf(NUMBER.wabaId).length;
    const res = await create({ ...base, whatsapp_account_id: accountId, ...input });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatch(message);
    expect((await stored()).length).toBe(before);
    expect(sim.templatesOf(NUMBER.wabaId).length).toBe(sentBefore);
  });
});
