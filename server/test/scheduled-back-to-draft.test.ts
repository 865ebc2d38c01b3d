import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app';
import { seedCampaignWorld, type CampaignWorld } from './helpers/campaign-fixtures';

/**
 * What «Cambiar fecha» and «Volver a borrador» call: PUT /api/campaigns/{id} with a new
 * `scheduled_at`, or with `scheduled_at: null`. A scheduled campaign moves and goes back to
 * draft; once it started, neither is possible.
 */
let t: TestApp;
let headers: { authorization: string };
let w: CampaignWorld;

beforeAll(async () => {
  t = await createTestApp();
  const user = await t.signUp();
  headers = user.headers;
  w = await seedCampaignWorld(t.ctx.db, t.ctx.secrets, user.userId, { number: { phoneNumberId: '1501', wabaId: '2501', token: 'tok' }, contacts: 3 });
});
afterAll(() => t.close());

const call = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: object, h = headers) =>
  t.app.inject({ method, url: `/api/campaigns${url}`, headers: h, ...(payload ? { payload } : {}) });

describe('a scheduled campaign before it sends', () => {
  it('moves to another time, goes back to draft and is scheduled again', async () => {
    const first = new Date(Date.now() + 2 * 86_400_000).toISOString();
    const created = await call('POST', '', {
      name: 'Programada',
      kommo_account_id: w.kommoAccountId,
      whatsapp_account_id: w.whatsappAccountId,
      template_id: w.templateId,
      scheduled_at: first,
    });
    expect(created.statusCode, created.body).toBe(201);
    const { id } = created.json() as { id: number };
    expect(created.json()).toMatchObject({ status: 'scheduled', scheduled_at: first });

    const later = new Date(Date.now() + 5 * 86_400_000).toISOString();
    const moved = await call('PUT', `/${id}`, { scheduled_at: later });
    expect(moved.statusCode, moved.body).toBe(200);
    expect(moved.json()).toMatchObject({ status: 'scheduled', scheduled_at: later });

    const draft = await call('PUT', `/${id}`, { scheduled_at: null });
    expect(draft.statusCode, draft.body).toBe(200);
    expect(draft.json()).toMatchObject({ status: 'draft', scheduled_at: null });
    expect((await call('GET', `/${id}`)).json()).toMatchObject({ status: 'draft', scheduled_at: null });

    const again = await call('PUT', `/${id}`, { scheduled_at: first });
    expect(again.json()).toMatchObject({ status: 'scheduled', scheduled_at: first });
    // Another tenant can do neither.
    const other = await t.signUp();
    expect((await call('PUT', `/${id}`, { scheduled_at: null }, other.headers)).statusCode).toBe(404);
    expect((await call('GET', `/${id}`)).json().status).toBe('scheduled');
  });

  it('cannot be moved or taken back once it started', async () => {
    const created = await call('POST', '', {
      name: 'Ya enviando',
      kommo_account_id: w.kommoAccountId,
      whatsapp_account_id: w.whatsappAccountId,
      template_id: w.templateId,
      scheduled_at: new Date(Date.now() + 86_400_000).toISOString(),
    });
    const { id } = created.json() as { id: number };
    expect((await call('POST', `/${id}/start`)).statusCode).toBe(200);
    const back = await call('PUT', `/${id}`, { scheduled_at: null });
    expect(back.statusCode).toBe(409);
    expect(back.json().error).toMatch(/^No se puede editar una campaña en estado (Enviando|Completada)$/);
  });
});
