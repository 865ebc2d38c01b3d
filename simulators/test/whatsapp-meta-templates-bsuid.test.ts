// Meta's 2025–26 template and identity rules in the simulator: the pause ladder
// (message_template_status_update with other_info FIRST_PAUSE / SECOND_PAUSE, then DISABLED;
// UNPAUSED, REINSTATED, FLAGGED), message_template_quality_update, template_category_update,
// held_for_quality_assessment, and business-scoped user ids (recipient_user_id, from_user_id,
// sends with `recipient`), plus the /__control endpoints that drive all of it from another process.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_RULES, startWhatsAppSim, type WhatsAppSim } from '../src/whatsapp/index';
import { call } from './helpers/graph';
import { BUSINESS, changes, numbers, phone, PN_A1, PN_B1, SECRET, send, statusesOf, templates, tokenOf, WABA_A } from './helpers/meta';
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver';

const BSUID = /^[A-Z]{2}\.[A-Za-z0-9]+$/;

describe('WhatsApp simulator: Meta 2025–26 templates and usernames', () => {
  let sim: WhatsAppSim;
  let hook: WebhookReceiver;
  const post = (pn: string, payload: unknown) => call(`${sim.graphUrl}/${pn}/messages`, { token: tokenOf(pn), body: payload });
  const statusEvents = () => changes(hook, 'message_template_status_update').map((c) => c.value);
  const waitFor = async (predicate: () => boolean) => {
    const start = Date.now();
    while (!predicate()) {
      if (Date.now() - start > 3000) throw new Error('condition not met in time');
      await new Promise((r) => setTimeout(r, 10));
    }
  };

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
    sim.configure({ rules: { ...DEFAULT_RULES, pauseDurationsMs: [...DEFAULT_RULES.pauseDurationsMs] } });
    hook.received.length = 0;
  });

  it('walks the pause ladder: RED -> FIRST_PAUSE (132015) -> UNPAUSED -> SECOND_PAUSE -> DISABLED (132016) -> REINSTATED', async () => {
    sim.configure({ rules: { pauseDurationsMs: [150, 150] } });
    sim.setTemplateQuality({ wabaId: WABA_A, name: 'promo', score: 'RED' });
    await sim.flushWebhooks();
    const [quality] = changes(hook, 'message_template_quality_update');
    expect(quality).toMatchObject({ wabaId: WABA_A, time: expect.any(Number) });
    expect(quality.value).toEqual({
      previous_quality_score: 'UNKNOWN', new_quality_score: 'RED', message_template_id: expect.any(Number), message_template_name: 'promo', message_template_language: 'es',
    });
    expect(statusEvents()).toEqual([{
      event: 'PAUSED', message_template_id: quality.value.message_template_id, message_template_name: 'promo', message_template_language: 'es',
      reason: 'NONE', message_template_category: 'MARKETING',
      other_info: { title: 'FIRST_PAUSE', description: expect.stringContaining('paused for 3 hours') },
    }]);
    const paused = await post(PN_A1, send(phone(1), 'promo'));
    expect([paused.status, paused.json.error.code]).toEqual([400, 132015]);

    await waitFor(() => statusEvents().length === 2);
    expect(statusEvents()[1]).toMatchObject({ event: 'APPROVED', other_info: { title: 'UNPAUSED', description: expect.any(String) } });
    expect((await post(PN_A1, send(phone(1), 'promo'))).status).toBe(200);

    sim.setTemplateQuality({ wabaId: WABA_A, name: 'promo', score: 'RED' });
    await sim.flushWebhooks();
    expect(statusEvents()[2]).toMatchObject({ event: 'PAUSED', other_info: { title: 'SECOND_PAUSE', description: expect.stringContaining('6 hours') } });
    sim.templateEvent({ wabaId: WABA_A, name: 'promo', event: 'PAUSE' });
    await sim.flushWebhooks();
    expect(statusEvents()[3]).toMatchObject({ event: 'DISABLED', disable_info: { disable_date: expect.any(Number) } });
    expect((await post(PN_A1, send(phone(2), 'promo'))).json.error.code).toBe(132016);
    // The timer of the second pause must not bring a disabled template back.
    await new Promise((r) => setTimeout(r, 200));
    expect(statusEvents()).toHaveLength(4);

    sim.templateEvent({ wabaId: WABA_A, name: 'promo', event: 'REINSTATE' });
    sim.templateEvent({ wabaId: WABA_A, name: 'promo', event: 'FLAG' });
    await sim.flushWebhooks();
    expect(statusEvents().slice(4).map((e) => e.event)).toEqual(['REINSTATED', 'FLAGGED']);
    expect(statusEvents()[5].disable_info).toEqual({ disable_date: expect.any(Number) });
    expect((await post(PN_A1, send(phone(2), 'promo'))).status).toBe(200);
    // After a reinstatement the ladder starts again.
    sim.templateEvent({ wabaId: WABA_A, name: 'promo', event: 'PAUSE' });
    await sim.flushWebhooks();
    expect(statusEvents()[6].other_info.title).toBe('FIRST_PAUSE');
    // A reinstatement cancels the pending unpause: no stray UNPAUSED after it.
    sim.templateEvent({ wabaId: WABA_A, name: 'promo', event: 'REINSTATE' });
    await new Promise((r) => setTimeout(r, 200));
    await sim.flushWebhooks();
    expect(statusEvents().slice(7).map((e) => e.event)).toEqual(['REINSTATED']);
    expect(() => sim.templateEvent({ wabaId: WABA_A, name: 'nada', event: 'PAUSE' })).toThrow(/no template/);
  });

  it('announces impending and completed category changes, and prices by the new category', async () => {
    sim.templateCategoryUpdate({ wabaId: WABA_A, name: 'aviso', newCategory: 'MARKETING', impending: true, inMs: 3600_000 });
    await sim.flushWebhooks();
    const [impending] = changes(hook, 'template_category_update');
    expect(impending.value).toEqual({
      message_template_id: expect.any(Number), message_template_name: 'aviso', message_template_language: 'es',
      correct_category: 'MARKETING', new_category: 'UTILITY', category_update_timestamp: expect.any(Number),
    });
    expect(impending.value.category_update_timestamp - Date.now() / 1000).toBeGreaterThan(3500);

    sim.templateCategoryUpdate({ wabaId: WABA_A, name: 'aviso', newCategory: 'MARKETING' });
    await sim.flushWebhooks();
    expect(changes(hook, 'template_category_update')[1].value).toEqual({
      message_template_id: expect.any(Number), message_template_name: 'aviso', message_template_language: 'es', previous_category: 'UTILITY', new_category: 'MARKETING',
    });
    hook.received.length = 0;
    await post(PN_A1, send(phone(10), 'aviso'));
    await sim.flushWebhooks();
    expect(statusesOf(hook, phone(10))[0].pricing.category).toBe('marketing');
    sim.templateCategoryUpdate({ wabaId: WABA_A, name: 'aviso', newCategory: 'UTILITY' });
  });

  it('answers held_for_quality_assessment for a share of sends of a new marketing template', async () => {
    sim.configure({ rules: { heldForQualityShare: 1 } });
    const held = await post(PN_B1, send(phone(20), 'promo'));
    expect(held.json.messages).toEqual([{ id: expect.stringMatching(/^wamid\./), message_status: 'held_for_quality_assessment' }]);
    expect((await post(PN_B1, send(phone(21), 'aviso'))).json.messages[0].message_status).toBe('accepted');
    sim.configure({ rules: { heldWindowMs: 0 } });
    expect((await post(PN_B1, send(phone(22), 'promo'))).json.messages[0].message_status).toBe('accepted');
  });

  it('shows username users only by their BSUID, in statuses and inbound messages', async () => {
    const user = phone(100);
    sim.setUsernameUser(user);
    const bsuid = sim.bsuidOf(PN_A1, user);
    expect(bsuid).toMatch(BSUID);
    expect(bsuid.startsWith('AR.')).toBe(true);
    expect(sim.bsuidOf(PN_B1, user)).toBe(bsuid); // same portfolio, same BSUID

    const r = await post(PN_A1, send(user, 'aviso'));
    expect(r.json.contacts).toEqual([{ input: user, wa_id: user }]);
    await sim.flushWebhooks();
    const statuses = statusesOf(hook, bsuid);
    expect(statuses.map((s) => s.status)).toEqual(['sent', 'delivered']);
    for (const s of statuses) {
      expect(s.recipient_user_id).toBe(bsuid);
      expect(s).not.toHaveProperty('recipient_id');
    }

    hook.received.length = 0;
    await sim.sendInbound({ phoneNumberId: PN_A1, from: user, text: 'BAJA' });
    const value = changes(hook, 'messages')[0].value;
    expect(value.contacts).toEqual([{ profile: { name: expect.any(String), username: expect.stringMatching(/^@/) }, user_id: bsuid }]);
    expect(value.messages).toEqual([{ from_user_id: bsuid, id: expect.stringMatching(/^wamid\./), timestamp: expect.stringMatching(/^\d+$/), type: 'text', text: { body: 'BAJA' } }]);

    // A user who is not a username user keeps the phone, and gains recipient_user_id once BSUIDs are everywhere.
    hook.received.length = 0;
    sim.configure({ rules: { bsuidInAllStatuses: true } });
    await post(PN_A1, send(phone(101), 'aviso'));
    await sim.flushWebhooks();
    expect(statusesOf(hook, phone(101))[0]).toMatchObject({ recipient_id: phone(101), recipient_user_id: sim.bsuidOf(PN_A1, phone(101)) });
    sim.setUsernameUser(user, false);
  });

  it('makes a configurable share of users username users', async () => {
    sim.configure({ rules: { usernameShare: 0.3 } });
    await Promise.all(Array.from({ length: 100 }, (_, i) => post(PN_A1, send(phone(200 + i), 'aviso'))));
    await sim.flushWebhooks();
    const sent = hook.statuses().filter((s) => s.status === 'sent');
    expect(sent).toHaveLength(100);
    const hidden = sent.filter((s) => s.recipient_user_id && !s.recipient_id).length;
    expect(hidden).toBeGreaterThan(15);
    expect(hidden).toBeLessThan(45);
  });

  it('sends to a BSUID with `recipient`, with Meta\'s rules on `to` and `recipient`', async () => {
    const user = phone(300);
    const bsuid = sim.bsuidOf(PN_A1, user);
    const byBsuid = await post(PN_A1, send(undefined, 'aviso', { recipient: bsuid }));
    expect(byBsuid.status).toBe(200);
    expect(byBsuid.json.contacts).toEqual([{ input: bsuid, user_id: bsuid }]);
    // With both, `to` takes precedence (the phone path answers wa_id).
    const both = await post(PN_A1, send(user, 'aviso', { recipient: bsuid }));
    expect(both.json.contacts).toEqual([{ input: user, wa_id: user }]);
    const neither = await post(PN_A1, send(undefined, 'aviso'));
    expect([neither.status, neither.json.error.code]).toEqual([400, 100]);
    const bad = await post(PN_A1, send(undefined, 'aviso', { recipient: '5491130000300' }));
    expect([bad.status, bad.json.error.code]).toEqual([400, 100]);
    const auth = await post(PN_A1, send(undefined, 'codigo', { recipient: bsuid }));
    expect([auth.status, auth.json.error.code]).toEqual([400, 131062]);
    expect((await post(PN_A1, send(user, 'codigo'))).status).toBe(200);

    // A BSUID the simulator never handed out: accepted, statuses carry only the BSUID.
    const stranger = 'MX.98765432109876543210';
    expect((await post(PN_A1, send(undefined, 'aviso', { recipient: stranger }))).status).toBe(200);
    await sim.flushWebhooks();
    expect(statusesOf(hook, stranger).map((s) => [s.status, s.recipient_id])).toEqual([['sent', undefined], ['delivered', undefined]]);
    // The known user sent by BSUID is still a phone user: the statuses show the phone and the BSUID.
    const first = hook.statuses().find((s) => s.id === byBsuid.json.messages[0].id);
    expect(first).toMatchObject({ recipient_id: user, recipient_user_id: bsuid });
    expect(sim.messages().some((m) => m.to === stranger)).toBe(true);
  });

  it('drives every rule through /__control from another process', async () => {
    const c = (path: string, body?: unknown) => call(`${sim.url}/__control${path}`, { body });
    expect((await c('/configure', { rules: { marketingLimitShare: 2 } })).status).toBe(400);
    expect((await c('/configure', { rules: { enforcePortfolioLimit: true, legacyLimitShape: 'also' } })).json).toEqual({ ok: true });
    expect((await c('/messaging-limit', { businessId: BUSINESS, limit: 10000 })).json).toEqual({ ok: true });
    expect((await c(`/portfolio?businessId=${BUSINESS}`)).json).toEqual({ businessId: BUSINESS, limit: 10000, tier: 'TIER_10K', used: 0 });
    expect((await c('/username-user', { phone: phone(400) })).json).toEqual({ ok: true });
    const { bsuid } = (await c(`/bsuid?phoneNumberId=${PN_A1}&phone=${phone(400)}`)).json;
    expect(bsuid).toMatch(BSUID);
    expect((await c('/marketing-preference', { phoneNumberId: PN_A1, user: bsuid, value: 'stop' })).json).toEqual({ ok: true });
    const pref = changes(hook, 'user_preferences').at(-1)!.value;
    expect(pref.user_preferences[0]).toMatchObject({ user_id: bsuid, value: 'stop' });
    expect(pref.user_preferences[0]).not.toHaveProperty('wa_id');
    expect((await c('/template-quality', { wabaId: WABA_A, name: 'promo', score: 'YELLOW' })).json).toEqual({ ok: true });
    expect((await c('/template-event', { wabaId: WABA_A, name: 'promo', event: 'FLAG' })).json).toEqual({ ok: true });
    expect((await c('/template-event', { wabaId: WABA_A, name: 'promo', event: 'NOPE' })).status).toBe(400);
    expect((await c('/template-category', { wabaId: WABA_A, name: 'aviso', newCategory: 'UTILITY', impending: true })).json).toEqual({ ok: true });
    expect((await c('/throughput-upgrade', { phoneNumberId: PN_A1, durationMs: 50 })).json).toEqual({ ok: true });
    expect((await c('/account-update', { wabaId: WABA_A, event: 'ACCOUNT_VIOLATION' })).json).toEqual({ ok: true });
    expect((await c('/advance-clock', { ms: 1000 })).json).toEqual({ ok: true });
    expect((await c('/advance-clock', { ms: -1 })).status).toBe(400);
    await waitFor(() => changes(hook, 'phone_number_quality_update').some((x) => x.value.event === 'THROUGHPUT_UPGRADE'));
    await sim.flushWebhooks();
    const fields = new Set(changes(hook).map((x) => x.field));
    for (const f of ['business_capability_update', 'phone_number_quality_update', 'user_preferences', 'message_template_quality_update', 'message_template_status_update', 'template_category_update', 'account_update']) {
      expect(fields.has(f)).toBe(true);
    }
    expect(hook.received.every((r) => r.signatureValid)).toBe(true);
    await c('/marketing-preference', { phoneNumberId: PN_A1, user: bsuid, value: 'resume' });
    await c('/messaging-limit', { businessId: BUSINESS, limit: 250 });
  });
});
