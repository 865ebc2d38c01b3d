// Meta's Marketing Messages API in the simulator: the WABA's onboarding status and the
// portfolio's terms (`GET /{waba}?fields=…`), MM_LITE_TERMS_SIGNED, the rules Meta enforces on
// POST /{id}/marketing_messages (schema without other properties, only template messages, only
// MARKETING templates, product_policy STRICT refuses when not onboarded and CLOUD_API_FALLBACK
// delivers by Cloud API, a template still syncing), `marketing_lite` pricing, a template's TTL per
// category and its expiry (410), link clicks (`user_actions`) and template_analytics by product_type.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startWhatsAppSim, type WhatsAppSim } from '../src/whatsapp/index';
import { call, waitFor } from './helpers/graph';
import { changes, numbers, phone, PN_A1, SECRET, send, statusesOf, templates, tokenOf, WABA_A } from './helpers/meta';
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver';

describe('WhatsApp simulator: Marketing Messages API', () => {
  let sim: WhatsAppSim;
  let hook: WebhookReceiver;
  const mm = (payload: unknown) => call(`${sim.graphUrl}/${PN_A1}/marketing_messages`, { token: tokenOf(PN_A1), body: payload });
  const strict = (to: string, name = 'promo', extra: Record<string, unknown> = {}) => send(to, name, { product_policy: 'STRICT', ...extra });
  const promoId = () => sim.templatesOf(WABA_A).find((t) => t.name === 'promo').id as string;

  beforeAll(async () => {
    hook = await startWebhookReceiver(SECRET);
    sim = await startWhatsAppSim({ appSecret: SECRET, webhookUrl: hook.url, statusDelayMs: 5, readRate: 0, numbers, templates });
  });
  afterAll(async () => {
    await sim.close();
    await hook.close();
  });
  beforeEach(() => {
    sim.reset();
    hook.received.length = 0;
  });

  it('reports the onboarding status and the terms, and posts MM_LITE_TERMS_SIGNED when the portfolio accepts', async () => {
    const read = () => call(`${sim.graphUrl}/${WABA_A}?fields=owner_business_info,marketing_messages_onboarding_status`, { token: tokenOf(PN_A1) });
    expect((await read()).json).toMatchObject({ marketing_messages_onboarding_status: 'ELIGIBLE', owner_business_info: { marketing_messages_onboarding_status: { status: 'NOT_STARTED' } } });
    await sim.setMarketingOnboarding({ wabaId: WABA_A, status: 'ONBOARDED' });
    expect((await read()).json).toMatchObject({ marketing_messages_onboarding_status: 'ONBOARDED', owner_business_info: { marketing_messages_onboarding_status: { status: 'TERM_OF_SERVICE_SIGNED' } } });
    await sim.flushWebhooks();
    const [update] = changes(hook, 'account_update');
    expect(update).toMatchObject({ wabaId: WABA_A, value: { event: 'MM_LITE_TERMS_SIGNED', waba_info: { waba_id: WABA_A, owner_business_id: expect.any(String) } } });
  });

  it('STRICT refuses while not onboarded (100, unsupported post request); CLOUD_API_FALLBACK delivers by Cloud API', async () => {
    await sim.setMarketingOnboarding({ wabaId: WABA_A, status: 'ELIGIBLE', announce: false });
    const refused = await mm(strict(phone(1)));
    expect(refused.status).toBe(400);
    expect(refused.json.error).toMatchObject({ code: 100, error_subcode: 33, message: expect.stringMatching(/^Unsupported post request/) });
    const fallback = await mm(send(phone(2), 'promo', { product_policy: 'CLOUD_API_FALLBACK' }));
    expect(fallback.status).toBe(200);
    expect(sim.routes().get(fallback.json.messages[0].id)).toBe('messages');
    await sim.flushWebhooks();
    await waitFor(() => statusesOf(hook, phone(2)).length > 0);
    expect(statusesOf(hook, phone(2))[0].pricing.category).toBe('marketing');
  });

  it('enforces the request rules: schema, template messages, MARKETING only, policy enum, template syncing', async () => {
    await sim.setMarketingOnboarding({ wabaId: WABA_A, status: 'ONBOARDED', announce: false });
    expect((await mm(strict(phone(1), 'promo', { extra_field: 1 }))).json.error.code).toBe(100);
    expect((await mm({ messaging_product: 'whatsapp', recipient_type: 'individual', to: phone(1), type: 'interactive' })).json.error).toMatchObject({ code: 100, error_data: { details: 'Message must be a template message.' } });
    expect((await mm(strict(phone(1), 'aviso'))).json.error.code).toBe(134100);
    expect((await mm(strict(phone(1), 'codigo'))).json.error.code).toBe(134100);
    expect((await mm(strict(phone(1), 'promo', { product_policy: 'SOMETIMES' }))).json.error.code).toBe(100);
    sim.setTemplateSyncing({ wabaId: WABA_A, name: 'promo', ms: 60_000 });
    expect((await mm(strict(phone(1)))).json.error.code).toBe(134101);
    sim.setTemplateSyncing({ wabaId: WABA_A, name: 'promo', ms: 0 });
    const ok = await mm(strict(phone(1)));
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ messaging_product: 'whatsapp', success: true, messages: [{ id: expect.stringMatching(/^wamid\./) }] });
    expect(sim.routes().get(ok.json.messages[0].id)).toBe('marketing_messages');
    await sim.flushWebhooks();
    await waitFor(() => statusesOf(hook, phone(1)).length > 0);
    expect(statusesOf(hook, phone(1))[0].pricing).toMatchObject({ category: 'marketing_lite', pricing_model: 'PMP', type: 'regular' });
  });

  it('validates message_send_ttl_seconds per category, edits it by POST /{template_id}, and expires an undelivered marketing message (410) only on this API', async () => {
    await sim.setMarketingOnboarding({ wabaId: WABA_A, status: 'ONBOARDED', announce: false });
    const create = (category: string, ttl: number) => call(`${sim.graphUrl}/${WABA_A}/message_templates`, {
      token: tokenOf(PN_A1),
      body: { name: `ttl_${category.toLowerCase()}_${ttl}`, language: 'es', category, message_send_ttl_seconds: ttl, components: [{ type: 'BODY', text: 'Hola' }] },
    });
    expect((await create('MARKETING', 3_600)).json.error.code).toBe(100);
    expect((await create('MARKETING', 43_200)).status).toBe(200);
    expect((await create('UTILITY', 43_201)).json.error.code).toBe(100);
    expect((await create('AUTHENTICATION', 900)).status).toBe(200);
    const edit = (ttl: number) => call(`${sim.graphUrl}/${promoId()}`, { token: tokenOf(PN_A1), body: { message_send_ttl_seconds: ttl } });
    expect((await edit(100)).json.error.code).toBe(100);
    expect((await edit(43_200)).json).toEqual({ success: true });

    sim.setRecipientBehaviour(phone(3), 'offline');
    sim.setRecipientBehaviour(phone(4), 'offline');
    expect((await mm(strict(phone(3)))).status).toBe(200);
    expect((await call(`${sim.graphUrl}/${PN_A1}/messages`, { token: tokenOf(PN_A1), body: send(phone(4), 'promo') })).status).toBe(200);
    await sim.flushWebhooks();
    await waitFor(() => statusesOf(hook, phone(3)).some((s) => s.status === 'failed'));
    expect(statusesOf(hook, phone(3)).find((s) => s.status === 'failed').errors[0]).toMatchObject({ code: 410, title: 'Message expired' });
    // By Cloud API the marketing TTL does not apply: sent, never delivered, not expired here.
    expect(statusesOf(hook, phone(4)).map((s) => s.status)).toEqual(['sent']);
  });

  it('posts link clicks as user_actions for messages of this API only, and counts them in template_analytics by product_type', async () => {
    await sim.setMarketingOnboarding({ wabaId: WABA_A, status: 'ONBOARDED', announce: false });
    const viaMm = (await mm(strict(phone(5)))).json.messages[0].id;
    const viaCloud = (await call(`${sim.graphUrl}/${PN_A1}/messages`, { token: tokenOf(PN_A1), body: send(phone(6), 'promo') })).json.messages[0].id;
    await sim.clickLink({ wamid: viaMm });
    await expect(sim.clickLink({ wamid: viaCloud })).rejects.toThrow(/Marketing Messages API/);
    await sim.flushWebhooks();
    const [click] = changes(hook, 'messages').filter((c) => c.value.user_actions);
    expect(click!.value).toMatchObject({
      messaging_product: 'whatsapp',
      metadata: { phone_number_id: PN_A1 },
      user_actions: [{ action_type: 'marketing_messages_link_click', timestamp: expect.any(String), marketing_messages_link_click_data: { click_component: 'cta', click_id: expect.any(String), tracking_token: expect.any(String) } }],
    });

    const now = Math.floor(Date.now() / 1000);
    const analytics = (product?: string) => call(
      `${sim.graphUrl}/${WABA_A}/template_analytics?start=${now - 86_400}&end=${now + 86_400}&granularity=DAILY&metric_types=${encodeURIComponent('["CLICKED"]')}&template_ids=${encodeURIComponent(JSON.stringify([promoId()]))}${product ? `&product_type=${product}` : ''}`,
      { token: tokenOf(PN_A1) },
    );
    const mmPoints = (await analytics('MARKETING_MESSAGES_API_FOR_WHATSAPP')).json.data[0].data_points;
    expect(mmPoints.reduce((n: number, p: any) => n + p.clicked[0].count, 0)).toBe(1);
    const cloudPoints = (await analytics()).json.data[0].data_points;
    expect(cloudPoints.reduce((n: number, p: any) => n + p.clicked[0].count, 0)).toBe(0);
    const tooMany = await call(`${sim.graphUrl}/${WABA_A}/template_analytics?start=${now}&end=${now}&granularity=DAILY&template_ids=${encodeURIComponent(JSON.stringify(Array.from({ length: 11 }, (_, i) => String(i))))}`, { token: tokenOf(PN_A1) });
    expect(tooMany.json.error.code).toBe(100);
    sim.setAnalyticsUnavailable(WABA_A);
    expect((await analytics('MARKETING_MESSAGES_API_FOR_WHATSAPP')).json.error.code).toBe(100);
  });
});
