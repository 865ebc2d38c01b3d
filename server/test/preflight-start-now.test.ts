import type { Preflight } from '@masivo/contract/preflight';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCampaign } from '../src/services/campaigns/create-campaign';
import { createTestApp, type TestApp } from './helpers/app';
import { seedCampaignWorld, type CampaignWorld } from './helpers/campaign-fixtures';

/**
 * The send confirmation of a scheduled campaign: «Iniciar» sends now, so its pre-flight is
 * estimated from now with `?start=now`; without it the estimate starts at the scheduled date.
 */
let t: TestApp;
let userId: number;
let headers: { authorization: string };
let w: CampaignWorld;

beforeAll(async () => {
  t = await createTestApp();
  ({ userId, headers } = await t.signUp());
  w = await seedCampaignWorld(t.ctx.db, t.ctx.secrets, userId, { number: { phoneNumberId: '1401', wabaId: '2401', token: 'tok' }, contacts: 5 });
});
afterAll(() => t.close());

const get = (url: string, h = headers) => t.app.inject({ method: 'GET', url: `/api/campaigns${url}`, headers: h });

describe('the pre-flight of a scheduled campaign started now', () => {
  it('ends after the scheduled date by default, and soon with start=now; the audience is the same', async () => {
    const at = new Date(Date.now() + 3 * 86_400_000);
    const scheduled = await createCampaign(t.ctx, userId, {
      name: 'Programada',
      kommo_account_id: w.kommoAccountId,
      whatsapp_account_id: w.whatsappAccountId,
      template_id: w.templateId,
      scheduled_at: at.toISOString(),
    });
    expect(scheduled.status).toBe('scheduled');

    const atDate = await get(`/${scheduled.id}/preflight`);
    expect(atDate.statusCode, atDate.body).toBe(200);
    const later = atDate.json() as Preflight;
    expect(Date.parse(later.eta.finish_at)).toBeGreaterThanOrEqual(at.getTime());

    const now = await get(`/${scheduled.id}/preflight?start=now`);
    expect(now.statusCode, now.body).toBe(200);
    const soon = now.json() as Preflight;
    expect(Date.parse(soon.eta.finish_at)).toBeLessThan(Date.now() + 3_600_000);
    expect(soon.attempted).toBe(later.attempted);
    expect(soon.matched).toBe(later.matched);
    expect(soon.attempted).toBeGreaterThan(0);
  });

  it('refuses any other start in Spanish, and another tenant’s campaign as not found', async () => {
    const draft = await createCampaign(t.ctx, userId, {
      name: 'Borrador',
      kommo_account_id: w.kommoAccountId,
      whatsapp_account_id: w.whatsappAccountId,
      template_id: w.templateId,
    });
    const bad = await get(`/${draft.id}/preflight?start=later`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatch(/start solo admite el valor now/);
    const other = await t.signUp();
    expect((await get(`/${draft.id}/preflight?start=now`, other.headers)).statusCode).toBe(404);
  });
});
