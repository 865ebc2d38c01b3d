import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filterToBody } from '@masivo/contract/contact-filter';
import { createKommoTestEnv, waitForSync, type KommoTestEnv } from './helpers/kommo';
import { parseCsv } from './helpers/csv';

/**
 * Spec: `POST /contacts/{accountId}/export` takes `{filters, format}`. The console sends the
 * filter flat; both shapes must export the same rows.
 */
let env: KommoTestEnv;
let headers: { authorization: string };
let accountId: number;

beforeAll(async () => {
  env = await createKommoTestEnv();
  env.sim.addAccount({ subdomain: 'exporta', token: 'tok', contacts: 60, seed: 5 });
  env.sim.updateContact('exporta', 3, { tags: ['vip'] });
  env.sim.updateContact('exporta', 4, { tags: ['vip', 'cliente'] });
  env.sim.updateContact('exporta', 7, { name: '=SUMA(A1;A2)', tags: ['norte', 'sur'], custom: { Ciudad: 'Lima; "centro", 1.5' } });
  ({ headers } = await env.t.signUp());
  const phoneFieldId = env.sim.fields('exporta').phoneFieldId;
  const res = await env.t.app.inject({ method: 'POST', url: '/api/kommo/accounts', headers, payload: { subdomain: 'exporta', access_token: 'tok', phone_field_id: phoneFieldId } });
  accountId = res.json().id;
  env.startRunner();
  await env.t.app.inject({ method: 'POST', url: '/api/kommo/sync-contacts', headers, payload: { account_id: accountId } });
  await waitForSync(env.t, headers, accountId);
});
afterAll(() => env.close());

const exportWith = (payload: unknown) => env.t.app.inject({ method: 'POST', url: `/api/contacts/${accountId}/export`, headers, payload: payload as never });
const dataRows = (csv: string) => csv.replace(/^\uFEFF/, '').trim().split('\n').slice(1);


describe('export body', () => {
  const filters = filterToBody({ tags: ['vip'], tagOperator: 'OR' });

  it('exports the same filtered rows whether the filters come nested or flat', async () => {
    const nested = await exportWith({ filters, format: 'csv' });
    const flat = await exportWith({ ...filters, format: 'csv' });
    expect(nested.statusCode, nested.body).toBe(200);
    expect(flat.statusCode, flat.body).toBe(200);
    const everything = dataRows((await exportWith({})).body);
    expect(everything).toHaveLength(60);
    expect(dataRows(nested.body).length).toBeLessThan(everything.length);
    expect(dataRows(nested.body)).toEqual(dataRows(flat.body));
  });

  it('refuses a body that mixes both shapes, or a bad nested filter, with a Spanish 400', async () => {
    const both = await exportWith({ filters, searchQuery: 'ana' });
    expect(both.statusCode).toBe(400);
    expect(both.json().error).toMatch(/Envía los filtros/);
    const bad = await exportWith({ filters: { tags: 'vip' } });
    expect(bad.statusCode).toBe(400);
  });
});

describe('export formats', () => {
  it('writes csv_es for Excel in Spanish: semicolons, the BOM and the formula guard kept, the same cells as csv', async () => {
    const es = await exportWith({ format: 'csv_es' });
    const plain = await exportWith({ format: 'csv' });
    expect(es.statusCode, es.body).toBe(200);
    expect(es.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(es.rawPayload.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    expect(es.body.startsWith('\uFEFFID Kommo;Nombre;Nombre de pila;Apellido;Teléfono;')).toBe(true);
    const rows = parseCsv(es.body.slice(1), ';');
    expect(rows).toHaveLength(61);
    expect(rows).toEqual(parseCsv(plain.body.slice(1), ','));
    const seven = rows.find((r) => r[0] === '7')!;
    expect(seven[1]).toBe(`'=SUMA(A1;A2)`);
    // Kommo's field values are text of unknown type: written as they came, decimal point included.
    expect(seven[rows[0]!.indexOf('Ciudad')]).toBe('Lima; "centro", 1.5');
    expect(seven[7]).toBe('norte, sur');
    // A semicolon inside a cell is quoted, a comma is not (it is no separator here).
    expect(es.body).toContain(`;"'=SUMA(A1;A2)";`);
    expect(es.body).toContain(';"Lima; ""centro"", 1.5"');
    expect(es.body).toContain(';norte, sur');
    for (const r of rows.slice(1)) if (r[4]) expect(r[4]).toMatch(/^'\+\d+$/);
  });

  it('refuses an unknown format with a Spanish 400', async () => {
    const res = await exportWith({ format: 'xlsx' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatch(/Formato no soportado/);
  });
});
