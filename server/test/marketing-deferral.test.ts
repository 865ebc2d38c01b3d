import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/db/sql';
import { DEFERRED_MESSAGE } from '../src/services/campaigns/marketing-deferral';
import { US_MARKETING } from '../src/services/campaigns/us-marketing';
import { createCampaign } from '../src/services/campaigns/create-campaign';
import { startCampaign } from '../src/services/campaigns/start-campaign';
import { pauseCampaign } from '../src/services/campaigns/pause-campaign';
import { retryFailed } from '../src/services/campaigns/retry-failed';
import { insertContact, seedCampaignWorld } from './helpers/campaign-fixtures';
import { APP_SECRET, startEngineBed, waitFor, type EngineBed } from './helpers/engine-bed';
import { postWebhook } from './helpers/webhook';
import { marketingLimitFailed } from './fixtures/meta-limits';

/**
 * Meta's per-user marketing limit (131049): the recipient is deferred, retried no earlier
 * than 24 h later within the campaign's window and attempts, then failed with the reason.
 * Time is moved by shifting the stored times, never by waiting.
 */
let bed: EngineBed;
const A = { phoneNumberId: '7201', wabaId: '8201', token: 'tok-a', rate: 80 };
const B = { phoneNumberId: '7202', wabaId: '8202', token: 'tok-b', rate: 80 };

beforeAll(async () => {
  bed = await startEngineBed({ numbers: [A, B], contacts: 3, sim: { deliveryRate: 0, readRate: 0 } });
});
afterAll(() => bed?.close());

interface Row {
  id: number;
  status: string;
  attempts: number;
  deferrals: number;
  wamid: string | null;
  phone: string;
  error_code: number | null;
  error_message: string | null;
  wait_h: number;
}
const rowsOfCampaign = (campaignId: number) =>
  rowsOf<Row>(
    bed.t.ctx.db,
    sql`select id::int, status, attempts, deferrals, wamid, phone, error_code, error_message,
          (extract(epoch from (next_attempt_at - now())) / 3600)::float8 as wait_h
        from campaign_recipients where campaign_id = ${campaignId} order by id`,
  );
const rowOf = async (campaignId: number, id: number) => (await rowsOfCampaign(campaignId)).find((r) => r.id === id)!;

const refuse131049 = async (r: Row) => {
  const res = await postWebhook(
    bed.t.app,
    APP_SECRET,
    marketingLimitFailed({ wabaId: A.wabaId, phoneNumberId: A.phoneNumberId, wamid: r.wamid!, recipient: r.phone.slice(1), timestamp: Math.floor(Date.now() / 1000) }),
  );
  expect(res.statusCode).toBe(200);
};

/** The counters must equal the rows at every step. */
const countersMatch = async (campaignId: number) => {
  const c = await bed.campaign(campaignId);
  const rows = await rowsOfCampaign(campaignId);
  expect(c.deferred_count).toBe(rows.filter((r) => r.status === 'deferred').length);
  expect(c.failed_count).toBe(rows.filter((r) => r.status === 'failed').length);
  expect(c.pending_count).toBe(rows.filter((r) => r.status === 'pending' || r.status === 'sending').length);
  return c;
};

const wakeNow = (id: number) =>
  bed.t.ctx.db.execute(sql`update campaign_recipients set next_attempt_at = now() - interval '1 second' where id = ${id}`);

describe('131049 in a status webhook', () => {
  it('defers, retries after 24 h by itself, and fails with the reason after the attempts', async () => {
    const campaign = await bed.launch(0, {}, 'Diferidos');
    expect(campaign).toMatchObject({ deferred_max_attempts: 2, deferred_window_hours: 72 });
    await waitFor(() => bed.campaign(campaign.id), (c) => c.status === 'completed', 15_000, 'completed');
    const [first] = await rowsOfCampaign(campaign.id);

    for (let attempt = 1; attempt <= 3; attempt++) {
      const before = await rowOf(campaign.id, first!.id);
      await refuse131049(before);
      const after = await waitFor(() => rowOf(campaign.id, first!.id), (r) => r.status !== 'sent', 5_000, `verdict ${attempt}`);
      if (attempt < 3) {
        expect(after).toMatchObject({ status: 'deferred', deferrals: attempt, error_code: 131049, error_message: DEFERRED_MESSAGE });
        // Never earlier than 24 h after Meta's refusal.
        expect(after.wait_h).toBeGreaterThan(23.9);
        expect(after.wait_h).toBeLessThanOrEqual(24.01);
        const c = await countersMatch(campaign.id);
        expect(c).toMatchObject({ status: 'completed', deferred_count: 1, pending_count: 0 });
        // The same webhook again changes nothing.
        await refuse131049(before);
        await new Promise((r) => setTimeout(r, 300));
        expect((await rowOf(campaign.id, first!.id)).deferrals).toBe(attempt);
        // A day later: sent again by itself (the completed campaign reopens, then completes).
        await wakeNow(first!.id);
        const resent = await waitFor(
          () => rowOf(campaign.id, first!.id),
          (r) => r.status === 'sent' && r.wamid !== before.wamid,
          15_000,
          `retry ${attempt}`,
        );
        expect(resent.attempts).toBe(attempt + 1);
        await waitFor(() => bed.campaign(campaign.id), (c) => c.status === 'completed' && c.deferred_count === 0, 15_000, 'completed again');
      } else {
        expect(after).toMatchObject({ status: 'failed', deferrals: 2, error_code: 131049 });
        expect(after.error_message).toBe('Límite de marketing de Meta (131049): no se entregó en 3 intentos');
        const c = await countersMatch(campaign.id);
        expect(c).toMatchObject({ status: 'completed', deferred_count: 0, failed_count: 1 });
      }
    }
    // Only the deferred one was sent more than once.
    const counts = await rowsOfCampaign(campaign.id);
    expect(counts.map((r) => r.attempts).sort()).toEqual([1, 1, 3]);
  });

  it('fails instead of deferring when the next retry would fall outside the window', async () => {
    const c = await createCampaign(bed.t.ctx, bed.userId, {
      name: 'Ventana corta',
      kommo_account_id: bed.worlds[0]!.kommoAccountId,
      whatsapp_account_id: bed.worlds[0]!.whatsappAccountId,
      template_id: bed.worlds[0]!.templateId,
      deferred_max_attempts: 5,
      deferred_window_hours: 48,
    });
    await startCampaign(bed.t.ctx, bed.userId, c.id);
    await waitFor(() => bed.campaign(c.id), (x) => x.status === 'completed', 15_000, 'completed');
    const [r] = await rowsOfCampaign(c.id);
    await refuse131049(r!);
    await waitFor(() => rowOf(c.id, r!.id), (x) => x.status === 'deferred', 5_000, 'deferred');
    // The first refusal was 30 h ago: a retry 24 h after the next one would end 54 h after it.
    await bed.t.ctx.db.execute(sql`update campaign_recipients set first_deferred_at = first_deferred_at - interval '30 hours' where id = ${r!.id}`);
    await wakeNow(r!.id);
    const resent = await waitFor(() => rowOf(c.id, r!.id), (x) => x.status === 'sent' && x.wamid !== r!.wamid, 15_000, 'resent');
    await refuse131049(resent);
    const failed = await waitFor(() => rowOf(c.id, r!.id), (x) => x.status === 'failed', 5_000, 'failed');
    expect(failed.error_message).toBe('Límite de marketing de Meta (131049): no se entregó en 2 intentos');
    await countersMatch(c.id);
  });
});

describe('deferred recipients and the operator', () => {
  it('a paused campaign keeps its due deferrals pending until «Iniciar»; «Reintentar fallidos» waits 24 h and starts a new window', async () => {
    const c = await bed.launch(0, {}, 'Pausada');
    await waitFor(() => bed.campaign(c.id), (x) => x.status === 'completed', 15_000, 'completed');
    const [r1, r2] = await rowsOfCampaign(c.id);
    await bed.t.ctx.db.execute(sql`update campaigns set deferred_max_attempts = 0 where id = ${c.id}`);
    await refuse131049(r2!);
    await waitFor(() => rowOf(c.id, r2!.id), (x) => x.status === 'failed', 5_000, 'failed at once (no attempts left)');
    await bed.t.ctx.db.execute(sql`update campaigns set deferred_max_attempts = 2 where id = ${c.id}`);
    await refuse131049(r1!);
    await waitFor(() => rowOf(c.id, r1!.id), (x) => x.status === 'deferred', 5_000, 'deferred');

    // «Reintentar fallidos»: the 131049 one waits 24 h, with its deferrals reset.
    await retryFailed(bed.t.ctx, bed.userId, c.id);
    const retried = await rowOf(c.id, r2!.id);
    expect(retried).toMatchObject({ status: 'pending', deferrals: 0 });
    expect(retried.wait_h).toBeGreaterThan(23.9);

    // The campaign reopened for the retried row; paused now, its deferred row comes due.
    await pauseCampaign(bed.t.ctx, bed.userId, c.id);
    await wakeNow(r1!.id);
    await waitFor(() => rowOf(c.id, r1!.id), (x) => x.status === 'pending', 5_000, 'due deferral back to pending');
    await new Promise((r) => setTimeout(r, 500));
    expect(await bed.campaign(c.id)).toMatchObject({ status: 'paused', deferred_count: 0 });
    expect((await rowOf(c.id, r1!.id)).status).toBe('pending');
    await countersMatch(c.id);
    // «Iniciar» sends it.
    await startCampaign(bed.t.ctx, bed.userId, c.id);
    await waitFor(() => rowOf(c.id, r1!.id), (x) => x.status === 'sent' && x.wamid !== r1!.wamid, 15_000, 'sent after Iniciar');
  });
});

describe('131049 as the answer to the send', () => {
  it('defers the recipient the same way', async () => {
    bed.sim.injectFault({ kind: 'code', code: 131049, phoneNumberId: B.phoneNumberId, count: 1 });
    const campaign = await bed.launch(1, {}, 'Respuesta síncrona');
    const done = await waitFor(() => bed.campaign(campaign.id), (c) => c.status === 'completed', 15_000, 'completed');
    expect(done).toMatchObject({ deferred_count: 1, messages_sent: 2, failed_count: 0, pending_count: 0 });
    const deferred = (await rowsOfCampaign(campaign.id)).find((r) => r.status === 'deferred')!;
    expect(deferred).toMatchObject({ deferrals: 1, error_code: 131049, error_message: DEFERRED_MESSAGE });
    expect(deferred.wait_h).toBeGreaterThan(23.9);
    await countersMatch(campaign.id);
  });
});

describe('marketing templates and United States numbers', () => {
  it('skips US numbers (not Canada nor Puerto Rico) of a marketing campaign when the audience freezes', async () => {
    const { userId } = await bed.t.signUp();
    const w = await seedCampaignWorld(bed.t.ctx.db, bed.t.ctx.secrets, userId, {
      number: { phoneNumberId: '7301', wabaId: '8301', token: 'tok-us' },
      subdomain: 'usa',
    });
    const phones = { us: '+12025550123', ca: '+14165550123', pr: '+17875550123', ar: '+5491100000001' };
    let k = 1;
    for (const phone of Object.values(phones)) await insertContact(bed.t.ctx.db, userId, w.kommoAccountId, { kommoId: k++, phone });
    const input = { name: 'EE.UU.', kommo_account_id: w.kommoAccountId, whatsapp_account_id: w.whatsappAccountId, template_id: w.templateId };

    const marketing = await createCampaign(bed.t.ctx, userId, input);
    const started = await startCampaign(bed.t.ctx, userId, marketing.id);
    expect(started).toMatchObject({ total_recipients: 4, skipped_count: 1 });
    const [skipped] = await rowsOf<{ phone: string; error_message: string }>(
      bed.t.ctx.db,
      sql`select phone, error_message from campaign_recipients where campaign_id = ${marketing.id} and status = 'skipped'`,
    );
    expect(skipped).toEqual({ phone: phones.us, error_message: US_MARKETING });

    // A utility template reaches the US number.
    await bed.t.ctx.db.execute(sql`update templates set category = 'UTILITY' where id = ${w.templateId}`);
    const utility = await createCampaign(bed.t.ctx, userId, { ...input, name: 'Utilidad' });
    expect(await startCampaign(bed.t.ctx, userId, utility.id)).toMatchObject({ total_recipients: 4, skipped_count: 0 });
  });
});

describe('the deferral window on the campaign payloads', () => {
  it('defaults to 2 attempts within 72 h, refuses bad values in Spanish, and saves edits', async () => {
    const { userId, headers } = await bed.t.signUp();
    const w = await seedCampaignWorld(bed.t.ctx.db, bed.t.ctx.secrets, userId, {
      number: { phoneNumberId: '7401', wabaId: '8401', token: 'tok-api' },
      subdomain: 'api',
      contacts: 1,
    });
    const base = { name: 'API', kommo_account_id: w.kommoAccountId, whatsapp_account_id: w.whatsappAccountId, template_id: w.templateId };
    const post = (extra: object) => bed.t.app.inject({ method: 'POST', url: '/api/campaigns', headers, payload: { ...base, ...extra } });
    for (const [extra, message] of [
      [{ deferred_max_attempts: 6 }, /reintentos por límite de marketing deben ser un número entre 0 y 5/],
      [{ deferred_max_attempts: -1 }, /entre 0 y 5/],
      [{ deferred_max_attempts: 1.5 }, /número entero/],
      [{ deferred_max_attempts: 'dos' }, /entre 0 y 5/],
      [{ deferred_window_hours: 12 }, /ventana de reintentos debe ser de 24 a 168 horas/],
      [{ deferred_window_hours: 169 }, /24 a 168 horas/],
    ] as const) {
      const res = await post(extra);
      expect(res.statusCode, JSON.stringify(extra)).toBe(400);
      expect(res.json().error).toMatch(message);
    }
    const created = await post({});
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ deferred_max_attempts: 2, deferred_window_hours: 72, deferred_count: 0, limit_wait_until: null });
    const id = created.json().id;
    const edited = await bed.t.app.inject({ method: 'PUT', url: `/api/campaigns/${id}`, headers, payload: { deferred_max_attempts: 0, deferred_window_hours: 24 } });
    expect(edited.statusCode).toBe(200);
    expect(edited.json()).toMatchObject({ deferred_max_attempts: 0, deferred_window_hours: 24 });
    const bad = await bed.t.app.inject({ method: 'PUT', url: `/api/campaigns/${id}`, headers, payload: { deferred_window_hours: 200 } });
    expect(bad.statusCode).toBe(400);
    const [row] = await rowsOf<{ w: number }>(bed.t.ctx.db, sql`select deferred_window_hours as w from campaigns where id = ${id}`);
    expect(Number(row!.w)).toBe(24);
  });
});
