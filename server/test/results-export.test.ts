import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCampaign } from '../src/services/campaigns/create-campaign';
import { RESULTS_COLUMNS } from '../src/services/campaigns/results-export';
import { rowsOf } from '../src/db/sql';
import { createTestApp, type TestApp } from './helpers/app';
import { insertContacts, seedCampaignWorld } from './helpers/campaign-fixtures';
import { FORMULA_REPLY, seedSentCampaign, type SentCampaign } from './helpers/results-fixtures';
import { parseCsv } from './helpers/csv';

/**
 * The results export: a campaign's recipients as CSV with the contacts export's rules
 * (BOM, formula neutralising), streamed by keyset pages, filtered by status and by group.
 */
let t: TestApp;
let headers: { authorization: string };
let userId: number;
let s: SentCampaign;

beforeAll(async () => {
  t = await createTestApp();
  ({ userId, headers } = await t.signUp());
  s = await seedSentCampaign(t, userId, { phoneNumberId: '1501', wabaId: '2501' });
  // Person 2's message was charged as utility: the shipped card has no Argentine utility rate
  // since October 2025, so its cost is "sin tarifa".
  await t.ctx.db.execute(sql`update campaign_recipients set pricing_category = 'utility' where campaign_id = ${s.campaignId} and contact_id = ${s.contactId(2)}`);
});
afterAll(() => t.close());


const exportCsv = (id: number, query = '', h = headers) => t.app.inject({ method: 'GET', url: `/api/campaigns/${id}/results.csv${query}`, headers: h });

async function records(query = '', separator = ',') {
  const res = await exportCsv(s.campaignId, query);
  expect(res.statusCode, res.body).toBe(200);
  const [head, ...rows] = parseCsv(res.body.replace(/^\uFEFF/, ''), separator);
  expect(head).toEqual([...RESULTS_COLUMNS]);
  return rows.map((r) => Object.fromEntries(head!.map((h, i) => [h, r[i]])) as Record<(typeof RESULTS_COLUMNS)[number], string>);
}
const people = (rows: Array<Record<string, string>>) => rows.map((r) => Number(r['ID de contacto'])).sort((a, b) => a - b);
const ids = (...i: number[]) => i.map((n) => s.contactId(n)).sort((a, b) => a - b);

describe('results export', () => {
  it('is a CSV download with a BOM, one row per recipient, in Spanish', async () => {
    const res = await exportCsv(s.campaignId);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="resultados-promo-de-noviembre-\d{4}-\d{2}-\d{2}\.csv"$/);
    expect(res.body.startsWith('\uFEFFContacto,ID de contacto,Teléfono,Estado,')).toBe(true);
    const rows = await records();
    expect(rows).toHaveLength(13);
    const one = rows.find((r) => Number(r['ID de contacto']) === s.contactId(1))!;
    expect(one).toMatchObject({
      Contacto: 'Cliente 1',
      // Like the contacts export: a leading + is neutralised too.
      Teléfono: "'+5491100000001",
      Estado: 'Leído',
      'Última respuesta': 'Gracias',
      Respuestas: '2',
      'Botón tocado': 'Sí',
      'Categoría de cobro': 'Marketing',
      'Tipo de cobro': 'Normal',
      // The shipped card's Argentine marketing rate on the send day.
      'Costo (USD)': '0.0618',
    });
    for (const col of ['Enviado', 'Entregado', 'Leído', 'Respondió'] as const) expect(one[col]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/);
    expect(one['Falló']).toBe('');

    const byPerson = (i: number) => rows.find((r) => Number(r['ID de contacto']) === s.contactId(i))!;
    expect(byPerson(5)).toMatchObject({ Estado: 'Fallido', 'Código de error': '131026', 'Mensaje de error': 'Mensaje no entregable', 'Costo (USD)': '' });
    expect(byPerson(5)['Falló']).not.toBe('');
    expect(byPerson(2)['Costo (USD)']).toBe('sin tarifa');
    // A free entry point costs nothing; a message without Meta's pricing yet is priced by the template's category.
    expect(byPerson(10)).toMatchObject({ Estado: 'Entregado', 'Tipo de cobro': 'Gratis (punto de entrada)', 'Costo (USD)': '0' });
    expect(byPerson(4)).toMatchObject({ Estado: 'Enviado', 'Categoría de cobro': '', 'Costo (USD)': '0.0618' });
    expect(byPerson(12)).toMatchObject({ Estado: 'Pendiente', 'Costo (USD)': '' });
    expect(rows.find((r) => r.Contacto === 'Duplicado')).toMatchObject({ Estado: 'Omitido', 'Mensaje de error': expect.stringMatching(/Número repetido/) });
  });

  it('says per row the variant and its template, the number that sent it, the route and the clicks', async () => {
    // A split test on two numbers: its own rows, written as the sender and the webhooks leave them.
    const split = await seedSentCampaign(t, userId, { phoneNumberId: '1503', wabaId: '2503' });
    const second = await seedCampaignWorld(t.ctx.db, t.ctx.secrets, userId, { number: { phoneNumberId: '1504', wabaId: '2503', token: 'tok' }, subdomain: 'segundo' });
    await t.ctx.db.execute(sql`update whatsapp_accounts set display_phone_number = '+54 9 11 5555-0002' where id = ${second.whatsappAccountId}`);
    const phoneOfNumber = async (id: number) =>
      (await rowsOf<{ phone: string }>(t.ctx.db, sql`select coalesce(display_phone_number, phone_number) as phone from whatsapp_accounts where id = ${id}`))[0]!.phone;
    const [mainPhone, secondPhone] = [await phoneOfNumber(split.world.whatsappAccountId), await phoneOfNumber(second.whatsappAccountId)];
    expect(mainPhone).not.toBe(secondPhone);
    const variants = [
      { template_id: split.world.templateId, template_name: 'promo', template_language: 'es' },
      { template_id: second.templateId, template_name: 'promo_b', template_language: 'es' },
    ];
    await t.ctx.db.execute(sql`update campaigns set split_test = ${JSON.stringify({ share: 0.5, metric: 'click', wait_seconds: 60, no_winner: 'stop', variants })}::jsonb
      where id = ${split.campaignId}`);
    await t.ctx.db.execute(sql`insert into campaign_numbers (campaign_id, whatsapp_account_id, user_id) values (${split.campaignId}, ${split.world.whatsappAccountId}, ${userId}), (${split.campaignId}, ${second.whatsappAccountId}, ${userId})`);
    const set = (i: number, assignments: ReturnType<typeof sql>) =>
      t.ctx.db.execute(sql`update campaign_recipients set ${assignments} where campaign_id = ${split.campaignId} and contact_id = ${split.contactId(i)}`);
    await set(1, sql`variant = 1, whatsapp_account_id = ${second.whatsappAccountId}, route = 'marketing_messages', click_count = 3,
      clicked_at = '2026-11-02T10:00:00Z', last_clicked_at = '2026-11-02T12:30:00Z'`);
    await set(2, sql`variant = 0, whatsapp_account_id = ${split.world.whatsappAccountId}, route = 'messages'`);
    // Clicked once before the latest click's time was kept: the first click is the latest too.
    await set(8, sql`variant = 0, whatsapp_account_id = ${split.world.whatsappAccountId}, click_count = 1, clicked_at = '2026-11-02T09:00:00Z'`);
    // Pending outside the test slice: no arm yet, so no template; its number is already decided.
    await set(12, sql`variant = null, whatsapp_account_id = ${second.whatsappAccountId}`);

    const res = await exportCsv(split.campaignId);
    expect(res.statusCode, res.body).toBe(200);
    const [head, ...raw] = parseCsv(res.body.replace(/^\uFEFF/, ''));
    expect(head).toEqual([...RESULTS_COLUMNS]);
    const rows = raw.map((r) => Object.fromEntries(head!.map((h, i) => [h, r[i]])) as Record<string, string>);
    const byPerson = (i: number) => rows.find((r) => Number(r['ID de contacto']) === split.contactId(i))!;
    const phoneCell = (p: string) => (/^[=+\-@]/.test(p) ? `'${p}` : p);
    expect(byPerson(1)).toMatchObject({
      Variante: 'B',
      Plantilla: 'promo_b',
      'Número de envío': phoneCell(secondPhone),
      Ruta: 'API de marketing',
      Clics: '3',
      'Primer clic': '2026-11-02T10:00:00.000Z',
      'Último clic': '2026-11-02T12:30:00.000Z',
    });
    expect(byPerson(2)).toMatchObject({ Variante: 'A', Plantilla: 'promo', 'Número de envío': phoneCell(mainPhone), Ruta: 'Cloud API', Clics: '0', 'Primer clic': '', 'Último clic': '' });
    expect(byPerson(8)).toMatchObject({ Clics: '1', 'Primer clic': '2026-11-02T09:00:00.000Z', 'Último clic': '2026-11-02T09:00:00.000Z' });
    // Sent before routes were recorded: /messages. Never sent: no route.
    expect(byPerson(8).Ruta).toBe('Cloud API');
    expect(byPerson(12)).toMatchObject({ Variante: '', Plantilla: '', 'Número de envío': phoneCell(secondPhone), Ruta: '', Clics: '0' });
    expect(byPerson(5)).toMatchObject({ Ruta: '' });

    // A one-number campaign without a test: its template and number on every row.
    const plain = (await records()).find((r) => Number(r['ID de contacto']) === s.contactId(1))!;
    expect(plain).toMatchObject({ Variante: '', Plantilla: 'promo', 'Número de envío': phoneCell(await phoneOfNumber(s.world.whatsappAccountId)), Ruta: 'Cloud API' });
  });

  it('neutralises a reply a spreadsheet would run as a formula', async () => {
    const res = await exportCsv(s.campaignId);
    expect(res.body).not.toContain(`,${FORMULA_REPLY}`);
    const eleven = (await records()).find((r) => Number(r['ID de contacto']) === s.contactId(11))!;
    expect(eleven['Última respuesta']).toBe(`'${FORMULA_REPLY}`);
  });

  it('writes csv_es for Excel in Spanish: semicolons, decimal commas, the BOM and the formula guard kept', async () => {
    const res = await exportCsv(s.campaignId, '?format=csv_es');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.rawPayload.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    expect(res.body.startsWith('\uFEFFContacto;ID de contacto;Teléfono;Estado;')).toBe(true);
    const rows = await records('?format=csv_es', ';');
    expect(rows).toHaveLength(13);
    const byPerson = (i: number) => rows.find((r) => Number(r['ID de contacto']) === s.contactId(i))!;
    expect(byPerson(1)).toMatchObject({ Contacto: 'Cliente 1', Teléfono: "'+5491100000001", Estado: 'Leído', Respuestas: '2', 'Costo (USD)': '0,0618' });
    expect(byPerson(4)['Costo (USD)']).toBe('0,0618');
    expect(byPerson(10)['Costo (USD)']).toBe('0');
    expect(byPerson(2)['Costo (USD)']).toBe('sin tarifa');
    expect(byPerson(11)['Última respuesta']).toBe(`'${FORMULA_REPLY}`);
    expect(res.body).not.toContain(`;${FORMULA_REPLY}`);
    // The same rows and texts as the comma format, but for the decimal mark.
    const plain = await records();
    expect(rows.map((r) => ({ ...r, 'Costo (USD)': r['Costo (USD)'].replace(',', '.') }))).toEqual(plain);
  });

  it('refuses an unknown format with a Spanish 400', async () => {
    const res = await exportCsv(s.campaignId, '?format=xlsx');
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatch(/Formato no soportado/);
  });

  it('filters by status, by group, and by both', async () => {
    expect(people(await records('?status=failed'))).toEqual(ids(5, 6, 7));
    expect(people(await records('?group=failed_retryable'))).toEqual(ids(6, 7));
    expect(people(await records('?group=unread&hours=24'))).toEqual(ids(3, 10));
    expect(people(await records('?group=read_not_replied'))).toEqual(ids(2, 8));
    expect(people(await records(`?group=tapped&button=${encodeURIComponent('No')}`))).toEqual(ids(9));
    expect(people(await records('?group=replied&status=read'))).toEqual(ids(1, 9, 11));
    expect(people(await records('?group=replied&status=failed'))).toEqual([]);
  });

  it('refuses a bad filter with a Spanish 400 before writing any byte', async () => {
    const noButton = await exportCsv(s.campaignId, '?group=tapped');
    expect(noButton.statusCode).toBe(400);
    expect(noButton.json().error).toMatch(/Indica el botón/);
    const badStatus = await exportCsv(s.campaignId, '?status=entregadisimo');
    expect(badStatus.statusCode).toBe(400);
    expect(badStatus.json().error).toMatch(/status/);
  });

  it('is scoped to the signed-in user', async () => {
    const other = await t.signUp();
    const res = await exportCsv(s.campaignId, '', other.headers);
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toBe('Campaña no encontrada');
    expect(res.body).not.toContain('Cliente');
  });

  it('pages through more rows than one batch, each once and in order', async () => {
    const w = await seedCampaignWorld(t.ctx.db, t.ctx.secrets, userId, { number: { phoneNumberId: '1502', wabaId: '2502', token: 'tok' }, subdomain: 'grande' });
    await insertContacts(t.ctx.db, userId, w.kommoAccountId, 4_321);
    const big = await createCampaign(t.ctx, userId, { name: 'Grande', kommo_account_id: w.kommoAccountId, whatsapp_account_id: w.whatsappAccountId, template_id: w.templateId });
    // The rows a freeze writes, inserted directly (the freeze has its own tests).
    await t.ctx.db.execute(sql`insert into campaign_recipients (campaign_id, user_id, contact_id, phone, phone_key, status, sent_at)
      select ${big.id}, ${userId}, id, phone, phone_key, 'sent', now() from contacts where account_id = ${w.kommoAccountId} order by id`);
    const res = await exportCsv(big.id);
    expect(res.statusCode).toBe(200);
    const rows = parseCsv(res.body.replace(/^\uFEFF/, '')).slice(1);
    expect(rows).toHaveLength(4_321);
    const phones = rows.map((r) => r[2]);
    expect(new Set(phones).size).toBe(4_321);
    expect(phones[0]).toBe("'+5491100000001");
    expect(phones.at(-1)).toBe("'+5491100004321");
  });
});
