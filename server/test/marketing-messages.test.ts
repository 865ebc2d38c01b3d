import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/db/sql';
import { digitsOf } from './helpers/campaign-fixtures';
import { APP_SECRET, startEngineBed, waitFor, type EngineBed } from './helpers/engine-bed';
import { postWebhook } from './helpers/webhook';

/**
 * Meta's Marketing Messages API end to end, against the simulator: MARKETING sends of an
 * onboarded portfolio go by POST /{id}/marketing_messages with product_policy STRICT (and
 * nothing else does); a completed template_category_update mid-campaign moves the rest to
 * /messages (an impending one changes nothing); a refusal of the route sends the refused message
 * by /messages and moves the number there until MM_LITE_TERMS_SIGNED; `marketing_lite` is priced
 * at the marketing rate; a TTL expiry is «Vencido», not failed; link clicks are counted per
 * recipient and campaign; template analytics fill the campaign's clicks.
 */
const NUMBER = { phoneNumberId: '880001', wabaId: '780001', token: 'tok-mm', rate: 20 };
let bed: EngineBed;
let accountId: number;
let templateId: number;

type Row = { id: number; route: string | null; status: string; pricing_category: string | null; wamid: string | null; click_count: number; phone_key: string };
const recipients = (campaignId: number) =>
  rowsOf<Row>(bed.t.ctx.db, sql`select id, route, status, pricing_category, wamid, click_count, phone_key from campaign_recipients where campaign_id = ${campaignId} order by id`);
const account = async () =>
  (await rowsOf<{ mm_onboarding_status: string | null; mm_fallback_at: string | null; mm_fallback_reason: string | null }>(
    bed.t.ctx.db,
    sql`select mm_onboarding_status, mm_fallback_at, mm_fallback_reason from whatsapp_accounts where id = ${accountId}`,
  ))[0]!;
/** Sim wamid → route of every accepted message. */
const simRoutes = () => bed.sim.routes();

beforeAll(async () => {
  bed = await startEngineBed({ numbers: [NUMBER], contacts: 3 });
  accountId = bed.worlds[0]!.whatsappAccountId;
  templateId = bed.worlds[0]!.templateId;
  // Our copy of the template is Meta's (its id), as a sync leaves it.
  const simTemplate = bed.sim.templatesOf(NUMBER.wabaId).find((t) => t.name === 'promo');
  await bed.t.ctx.db.execute(sql`update templates set meta_id = ${simTemplate.id} where id = ${templateId}`);
});
afterAll(async () => bed?.close());

beforeEach(async () => {
  await bed.t.ctx.db.execute(sql`update templates set category = 'marketing' where id = ${templateId}`);
});

describe('onboarding', () => {
  it('reads marketing_messages_onboarding_status and the portfolio terms on refresh, and MM_LITE_TERMS_SIGNED live', async () => {
    await bed.sim.setMarketingOnboarding({ wabaId: NUMBER.wabaId, status: 'ELIGIBLE', announce: false });
    const res = await bed.t.app.inject({ method: 'POST', url: `/api/whatsapp-accounts/${accountId}/refresh`, headers: bed.headers });
    expect(res.statusCode).toBe(200);
    const card = res.json().marketing_messages;
    expect(card).toMatchObject({ state: 'eligible', onboarding_status: 'ELIGIBLE', terms_status: 'NOT_STARTED' });
    expect(card.guidance).toMatch(/Aceptar términos/);

    // The portfolio accepts the terms: Meta posts account_update MM_LITE_TERMS_SIGNED.
    await bed.sim.setMarketingOnboarding({ wabaId: NUMBER.wabaId, status: 'ONBOARDED' });
    await waitFor(account, (a) => a.mm_onboarding_status === 'ONBOARDED', 10_000, 'MM_LITE_TERMS_SIGNED applied');
    const after = await bed.t.app.inject({ method: 'GET', url: `/api/whatsapp-accounts/${accountId}`, headers: bed.headers });
    expect(after.json().marketing_messages).toMatchObject({ state: 'onboarded', terms_status: 'TERM_OF_SERVICE_SIGNED' });
  });

  it("applies Meta's documented account_update payload (waba_info) to the WABA's numbers only", async () => {
    await bed.t.ctx.db.execute(sql`update whatsapp_accounts set mm_onboarding_status = 'ELIGIBLE' where id = ${accountId}`);
    const payload = (waba: string) => ({
      object: 'whatsapp_business_account',
      entry: [{ id: waba, time: Math.floor(Date.now() / 1000), changes: [{ field: 'account_update', value: { event: 'MM_LITE_TERMS_SIGNED', waba_info: { waba_id: waba, owner_business_id: '1234567890' } } }] }],
    });
    expect((await postWebhook(bed.t.app, APP_SECRET, payload('999999'))).statusCode).toBe(200);
    await new Promise((r) => setTimeout(r, 400));
    expect((await account()).mm_onboarding_status).toBe('ELIGIBLE');
    expect((await postWebhook(bed.t.app, APP_SECRET, payload(NUMBER.wabaId))).statusCode).toBe(200);
    await waitFor(account, (a) => a.mm_onboarding_status === 'ONBOARDED', 10_000, 'documented payload applied');
  });
});

describe('routing by category', () => {
  it('sends MARKETING by /marketing_messages (STRICT), records the route and marketing_lite, prices it at the marketing rate, counts clicks', async () => {
    await bed.sim.setMarketingOnboarding({ wabaId: NUMBER.wabaId, status: 'ONBOARDED' });
    await waitFor(account, (a) => a.mm_onboarding_status === 'ONBOARDED' && !a.mm_fallback_at, 10_000, 'onboarded');
    const c = await bed.launch(0, {}, 'MM');
    await waitFor(() => bed.campaign(c.id), (x) => x.status === 'completed' && x.read_count === 3, 15_000, 'all read');
    const rows = await waitFor(() => recipients(c.id), (r) => r.every((x) => x.pricing_category === 'marketing_lite'), 10_000, 'pricing');
    expect(rows.map((r) => r.route)).toEqual(['marketing_messages', 'marketing_messages', 'marketing_messages']);
    const routes = simRoutes();
    for (const r of rows) expect(routes.get(r.wamid!)).toBe('marketing_messages');

    // marketing_lite at the card's marketing rate (AR), not "sin tarifa".
    const detail = await bed.campaign(c.id);
    const lines = detail.actual_cost?.lines ?? [];
    expect(lines.filter((l) => l.category === 'marketing_lite').every((l) => l.status === 'priced' && (l.total ?? 0) > 0)).toBe(true);
    expect(detail.actual_cost?.no_rate).toBe(0);
    expect(detail.marketing_messages).toMatchObject({ by_route: { marketing_messages: 3, messages: 0 }, clicked_count: 0, clicks_available: true });

    // A click on the first message, then a second one: one person, two clicks.
    await bed.sim.clickLink({ wamid: rows[0]!.wamid! });
    await bed.sim.clickLink({ wamid: rows[0]!.wamid!, component: 'body' });
    const clicked = await waitFor(() => recipients(c.id), (r) => r[0]!.click_count === 2, 10_000, 'clicks');
    expect(clicked.slice(1).every((r) => r.click_count === 0)).toBe(true);
    expect((await bed.campaign(c.id)).marketing_messages?.clicked_count).toBe(1);
    const page = await bed.t.app.inject({ method: 'GET', url: `/api/campaigns/${c.id}/messages`, headers: bed.headers });
    expect(page.json().messages[0]).toMatchObject({ route: 'marketing_messages', click_count: 2 });

    // Template analytics fill the campaign's clicks (product_type of this API).
    const analytics = await bed.t.app.inject({ method: 'POST', url: `/api/campaigns/${c.id}/meta-clicks`, headers: bed.headers });
    expect(analytics.statusCode).toBe(200);
    expect(analytics.json().marketing_messages).toMatchObject({ analytics_clicks: 2, clicks_available: true });

    // Meta retries a webhook: the same click delivered twice counts once, with Meta's click_id and
    // without one (then the message, the time and the component make the event).
    const clickPayload = (clickId: string | null, timestamp: number) => ({
      object: 'whatsapp_business_account',
      entry: [{
        id: NUMBER.wabaId,
        changes: [{
          field: 'messages',
          value: {
            messaging_product: 'whatsapp',
            metadata: { display_phone_number: '15550783881', phone_number_id: NUMBER.phoneNumberId },
            user_actions: [{
              action_type: 'marketing_messages_link_click',
              timestamp: String(timestamp),
              context: { id: rows[1]!.wamid },
              marketing_messages_link_click_data: { click_component: 'cta', product_id: 'sku_id', ...(clickId ? { click_id: clickId } : {}), tracking_token: 'example_token' },
            }],
          },
        }],
      }],
    });
    const second = Math.floor(Date.now() / 1000);
    for (const payload of [clickPayload('click-retried', second), clickPayload('click-retried', second), clickPayload(null, second + 1), clickPayload(null, second + 1)]) {
      expect((await postWebhook(bed.t.app, APP_SECRET, payload)).statusCode).toBe(200);
    }
    await waitFor(() => recipients(c.id), (r) => r[1]!.click_count >= 2, 10_000, 'retried clicks applied');
    // Let any late duplicate be applied before judging.
    await new Promise((r) => setTimeout(r, 600));
    const afterRetries = await recipients(c.id);
    expect(afterRetries.map((r) => r.click_count)).toEqual([2, 2, 0]);
    expect((await bed.campaign(c.id)).marketing_messages?.clicked_count).toBe(2);
    const [times] = await rowsOf<{ first: string; last: string }>(
      bed.t.ctx.db,
      sql`select extract(epoch from clicked_at)::bigint::text as first, extract(epoch from last_clicked_at)::bigint::text as last from campaign_recipients where id = ${rows[1]!.id}`,
    );
    expect(times).toEqual({ first: String(second), last: String(second + 1) });
  });

  it('never sends a non-marketing template by /marketing_messages, even on an onboarded number', async () => {
    await bed.t.ctx.db.execute(sql`update templates set category = 'utility' where id = ${templateId}`);
    const c = await bed.launch(0, {}, 'Utilidad');
    await waitFor(() => bed.campaign(c.id), (x) => x.status === 'completed', 15_000, 'completed');
    const rows = await recipients(c.id);
    const routes = simRoutes();
    for (const r of rows) {
      expect(r.route ?? 'messages').toBe('messages');
      expect(routes.get(r.wamid!)).toBe('messages');
    }
  });

  it('an impending category update changes nothing; the completed one moves the rest of a running campaign to /messages', async () => {
    await bed.t.ctx.db.execute(sql`update whatsapp_accounts set rate_per_second = 2 where id = ${accountId}`);
    const c = await bed.launch(0, {}, 'Cambio de categoría');
    await waitFor(() => recipients(c.id), (r) => r.some((x) => x.route === 'marketing_messages'), 10_000, 'first by MM');
    // Meta announces a change (impending: new_category is the current one, correct_category the next).
    bed.sim.templateCategoryUpdate({ wabaId: NUMBER.wabaId, name: 'promo', newCategory: 'UTILITY', impending: true, inMs: 60_000 });
    await new Promise((r) => setTimeout(r, 300));
    const [t1] = await rowsOf<{ category: string }>(bed.t.ctx.db, sql`select category from templates where id = ${templateId}`);
    expect(t1!.category).toBe('marketing');
    // The change happens: completed (previous_category → new_category).
    bed.sim.templateCategoryUpdate({ wabaId: NUMBER.wabaId, name: 'promo', newCategory: 'UTILITY' });
    await waitFor(async () => (await rowsOf<{ category: string }>(bed.t.ctx.db, sql`select category from templates where id = ${templateId}`))[0]!.category, (v) => v === 'utility', 10_000, 'category applied');
    await waitFor(() => bed.campaign(c.id), (x) => x.status === 'completed', 15_000, 'completed');
    const rows = await recipients(c.id);
    expect(rows.every((r) => r.status !== 'failed')).toBe(true);
    expect(rows[rows.length - 1]!.route ?? 'messages').toBe('messages');
    await bed.t.ctx.db.execute(sql`update whatsapp_accounts set rate_per_second = 20 where id = ${accountId}`);
    bed.sim.templateCategoryUpdate({ wabaId: NUMBER.wabaId, name: 'promo', newCategory: 'MARKETING' });
    await waitFor(async () => (await rowsOf<{ category: string }>(bed.t.ctx.db, sql`select category from templates where id = ${templateId}`))[0]!.category, (v) => v === 'marketing', 10_000, 'back to marketing');
  });
});

describe('time-to-live', () => {
  it('a message Meta reports expired (410) is «Vencido», not failed', async () => {
    const set = await bed.t.app.inject({ method: 'PATCH', url: `/api/templates/${templateId}/ttl`, headers: bed.headers, payload: { message_send_ttl_seconds: 43_200 } });
    expect(set.statusCode).toBe(200);
    expect(set.json().message_send_ttl_seconds).toBe(43_200);
    const tooShort = await bed.t.app.inject({ method: 'PATCH', url: `/api/templates/${templateId}/ttl`, headers: bed.headers, payload: { message_send_ttl_seconds: 3600 } });
    expect(tooShort.statusCode).toBe(400);
    expect(tooShort.body).toMatch(/12 horas a 30 días/);

    bed.sim.setRecipientBehaviour(digitsOf(1), 'offline');
    const c = await bed.launch(0, {}, 'Vence');
    const done = await waitFor(() => bed.campaign(c.id), (x) => x.status === 'completed' && x.marketing_messages?.expired_count === 1, 15_000, 'expired');
    expect(done.failed_count).toBe(0);
    expect(done.marketing_messages?.expiry_label).toBe('Vence en 12 horas');
    const statuses = await bed.statuses(c.id);
    expect(statuses.expired).toBe(1);
    bed.sim.setRecipientBehaviour(digitsOf(1), 'ok');
  });
});

describe('refusal of the route', () => {
  it('sends the refused message by /messages, moves the number there (shown on its card), and MM_LITE_TERMS_SIGNED brings it back', async () => {
    // We believe the portfolio onboarded; Meta no longer does (STRICT refuses with code 100).
    await bed.sim.setMarketingOnboarding({ wabaId: NUMBER.wabaId, status: 'ELIGIBLE', announce: false });
    await bed.t.ctx.db.execute(sql`update whatsapp_accounts set mm_onboarding_status = 'ONBOARDED', mm_fallback_at = null where id = ${accountId}`);
    const before = bed.sim.messages().length;
    const c = await bed.launch(0, {}, 'Rechazo');
    const done = await waitFor(() => bed.campaign(c.id), (x) => x.status === 'completed' && x.read_count === 3, 15_000, 'all read');
    expect(done.failed_count).toBe(0);
    const rows = await recipients(c.id);
    expect(rows.every((r) => (r.route ?? 'messages') === 'messages')).toBe(true);
    // Exactly one accepted message per person: the refusals were never accepted.
    expect(bed.sim.messages().length - before).toBe(3);
    const a = await account();
    expect(a.mm_fallback_at).not.toBeNull();
    const card = (await bed.t.app.inject({ method: 'GET', url: `/api/whatsapp-accounts/${accountId}`, headers: bed.headers })).json().marketing_messages;
    expect(card.state).toBe('fallback');
    expect(card.guidance).toMatch(/rechazó/);

    await bed.sim.setMarketingOnboarding({ wabaId: NUMBER.wabaId, status: 'ONBOARDED' });
    await waitFor(account, (x) => x.mm_fallback_at === null, 10_000, 'fallback ended');
    const again = await bed.launch(0, {}, 'De vuelta');
    await waitFor(() => bed.campaign(again.id), (x) => x.status === 'completed', 15_000, 'completed');
    expect((await recipients(again.id)).every((r) => r.route === 'marketing_messages')).toBe(true);
  });

  it('a template still syncing (134101) goes by /messages for that message, and the recipient never fails', async () => {
    bed.sim.setTemplateSyncing({ wabaId: NUMBER.wabaId, name: 'promo', ms: 60_000 });
    const c = await bed.launch(0, {}, 'Sincronizando');
    const done = await waitFor(() => bed.campaign(c.id), (x) => x.status === 'completed', 15_000, 'completed');
    expect(done.failed_count).toBe(0);
    expect((await recipients(c.id)).every((r) => (r.route ?? 'messages') === 'messages')).toBe(true);
    expect((await account()).mm_fallback_at).toBeNull();
    bed.sim.setTemplateSyncing({ wabaId: NUMBER.wabaId, name: 'promo', ms: 0 });
  });
});
