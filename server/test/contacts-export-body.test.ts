import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filterToBody } from '@masivo/contract/contact-filter';
import { createKommoTestEnv, waitForSync, type KommoTestEnv } from './helpers/kommo';

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
