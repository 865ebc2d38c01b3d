// Meta's 2025–26 limits in the simulator: portfolio messaging limits (new and old shapes), the
// per-user marketing limit (131049), marketing opt-out (user_preferences, 131050), the throughput
// upgrade and coexistence numbers, pricing on statuses and account_update bans and restrictions.
// Field names follow Meta's webhook reference pages (business_capability_update,
// phone_number_quality_update, user_preferences, status messages, account_update).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_RULES, startWhatsAppSim, type WhatsAppSim } from '../src/whatsapp/index';
import { call } from './helpers/graph';
import {
  BUSINESS, changes, numbers, phone, PN_A1, PN_A2, PN_B1, SECRET, send, statusesOf, templates, tokenOf, WABA_A, WABA_B,
} from './helpers/meta';
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver';

const DAY = 24 * 3600_000;

describe('WhatsApp simulator: Meta 2025–26 limits', () => {
  let sim: WhatsAppSim;
  let hook: WebhookReceiver;
  const post = (pn: string, payload: unknown) => call(`${sim.graphUrl}/${pn}/messages`, { token: tokenOf(pn), body: payload });
  const get = (id: string, fields: string) => call(`${sim.graphUrl}/${id}?fields=${fields}`, { token: tokenOf(id === WABA_B ? PN_B1 : id) });

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
    sim.configure({ failRate: 0, deliveryRate: 1, readRate: 0, rules: { ...DEFAULT_RULES, pauseDurationsMs: [...DEFAULT_RULES.pauseDurationsMs] } });
    hook.received.length = 0;
  });

  it('reports the portfolio limit in the new field, the old one or both, and the owning portfolio of a WABA', async () => {
    expect((await get(PN_A2, 'whatsapp_business_manager_messaging_limit,throughput')).json)
      .toEqual({ whatsapp_business_manager_messaging_limit: 'TIER_250', throughput: { level: 'HIGH' }, id: PN_A2 });
    sim.configure({ rules: { legacyLimitShape: 'also' } });
    expect((await get(PN_A1, 'whatsapp_business_manager_messaging_limit,messaging_limit_tier')).json)
      .toEqual({ whatsapp_business_manager_messaging_limit: 'TIER_250', messaging_limit_tier: 'TIER_250', id: PN_A1 });
    sim.configure({ rules: { legacyLimitShape: 'only' } });
    const onlyOld = (await get(PN_A1, 'whatsapp_business_manager_messaging_limit,messaging_limit_tier')).json;
    expect(onlyOld).toEqual({ messaging_limit_tier: 'TIER_250', id: PN_A1 });
    expect((await get(WABA_B, 'owner_business_info')).json).toEqual({ owner_business_info: { id: BUSINESS, name: expect.any(String), marketing_messages_onboarding_status: { status: 'NOT_STARTED' } }, id: WABA_B });
    expect(() => sim.configure({ rules: { legacyLimitShape: 'x' as never } })).toThrow(/legacyLimitShape/);
  });

  it('counts unique users of every number of the portfolio in a moving 24 h and fails the one past the limit', async () => {
    sim.configure({ rules: { enforcePortfolioLimit: true } });
    for (let i = 0; i < 200; i++) expect((await post(PN_A1, send(phone(i), 'aviso'))).status).toBe(200);
    for (let i = 200; i < 250; i++) expect((await post(PN_A2, send(phone(i), 'aviso'))).status).toBe(200);
    // A user already reached does not count again, from any number of the portfolio.
    expect((await post(PN_B1, send(phone(3), 'aviso'))).status).toBe(200);
    expect(sim.portfolioUsage(BUSINESS)).toEqual({ businessId: BUSINESS, limit: 250, tier: 'TIER_250', used: 250 });
    // The send is accepted (Meta answers 200) and fails in its status webhook.
    expect((await post(PN_B1, send(phone(250), 'aviso'))).status).toBe(200);
    // Users with an open customer-service window do not count.
    await sim.sendInbound({ phoneNumberId: PN_A1, from: phone(251), text: 'hola' });
    expect((await post(PN_A1, send(phone(251), 'promo'))).status).toBe(200);
    await sim.flushWebhooks();
    expect(statusesOf(hook, phone(250))).toEqual([expect.objectContaining({ status: 'failed', errors: [expect.objectContaining({ code: 131049 })] })]);
    expect(statusesOf(hook, phone(251)).map((s) => s.status)).toEqual(['sent', 'delivered']);
    expect(statusesOf(hook, phone(3)).every((s) => s.status !== 'failed')).toBe(true);
    expect(sim.portfolioUsage(BUSINESS).used).toBe(250);

    sim.advanceClock(DAY);
    expect(sim.portfolioUsage(BUSINESS).used).toBe(0);
    hook.received.length = 0;
    sim.configure({ rules: { portfolioLimitCode: 131000 } });
    expect((await post(PN_B1, send(phone(250), 'aviso'))).status).toBe(200);
    await sim.flushWebhooks();
    expect(statusesOf(hook, phone(250)).map((s) => s.status)).toEqual(['sent', 'delivered']);
  });

  it('changes the limit with business_capability_update and phone_number_quality_update, with and without the old fields', async () => {
    sim.setMessagingLimit({ phoneNumberId: PN_B1, limit: 2000 });
    await sim.flushWebhooks();
    const caps = changes(hook, 'business_capability_update');
    expect(caps.map((c) => c.wabaId).sort()).toEqual([WABA_A, WABA_B]);
    for (const c of caps) {
      expect(c.value).toEqual({ max_daily_conversations_per_business: 2000, max_phone_numbers_per_business: expect.any(Number), max_phone_numbers_per_waba: expect.any(Number) });
      expect(c.time).toEqual(expect.any(Number));
    }
    const quality = changes(hook, 'phone_number_quality_update');
    expect(quality.map((c) => c.value.display_phone_number).sort()).toEqual(['5491150000001', '5491150000002', '5491150000003']);
    expect(quality[0].value).toEqual({ display_phone_number: expect.any(String), event: 'UPGRADE', max_daily_conversations_per_business: 'TIER_2K' });
    expect((await get(PN_A1, 'whatsapp_business_manager_messaging_limit')).json.whatsapp_business_manager_messaging_limit).toBe('TIER_2K');

    hook.received.length = 0;
    sim.configure({ rules: { legacyLimitShape: 'also' } });
    sim.setMessagingLimit({ businessId: BUSINESS, limit: -1 });
    await sim.flushWebhooks();
    expect(changes(hook, 'business_capability_update')[0].value).toMatchObject({ max_daily_conversations_per_business: -1, max_daily_conversation_per_phone: -1 });
    expect(changes(hook, 'phone_number_quality_update')[0].value).toEqual({
      display_phone_number: expect.any(String), event: 'UPGRADE', old_limit: 'TIER_2K', current_limit: 'TIER_UNLIMITED', max_daily_conversations_per_business: 'TIER_UNLIMITED',
    });
    expect(sim.portfolioUsage(BUSINESS)).toMatchObject({ limit: -1, tier: 'TIER_UNLIMITED' });

    hook.received.length = 0;
    sim.setMessagingLimit({ businessId: BUSINESS, limit: 250 });
    await sim.flushWebhooks();
    expect(changes(hook, 'phone_number_quality_update')[0].value.event).toBe('DOWNGRADE');
    expect(() => sim.setMessagingLimit({ businessId: BUSINESS, limit: 5000 })).toThrow(/limit must be one of/);
  });

  it('fails a configurable share of marketing sends with 131049, the same way all day, and lets them through a day later', async () => {
    sim.configure({ rules: { marketingLimitShare: 0.5 } });
    const users = Array.from({ length: 40 }, (_, i) => phone(1000 + i));
    for (const u of users) await post(PN_A1, send(u, 'promo'));
    for (const u of users) await post(PN_A1, send(u, 'aviso'));
    await sim.flushWebhooks();
    const limited = users.filter((u) => statusesOf(hook, u).some((s) => s.status === 'failed'));
    expect(limited.length).toBeGreaterThan(5);
    expect(limited.length).toBeLessThan(35);
    const failed = statusesOf(hook, limited[0]).find((s) => s.status === 'failed');
    expect(failed).toEqual({
      id: expect.stringMatching(/^wamid\./), status: 'failed', timestamp: expect.stringMatching(/^\d+$/), recipient_id: limited[0],
      errors: [{
        code: 131049, title: 'This message was not delivered to maintain healthy ecosystem engagement.',
        message: 'This message was not delivered to maintain healthy ecosystem engagement.', error_data: { details: expect.any(String) }, href: expect.any(String),
      }],
    });
    // Utility sends are never limited: each user got exactly one failure at most.
    for (const u of limited) expect(statusesOf(hook, u).filter((s) => s.status === 'failed')).toHaveLength(1);

    hook.received.length = 0;
    for (const u of limited) await post(PN_A1, send(u, 'promo'));
    await sim.flushWebhooks();
    expect(limited.every((u) => statusesOf(hook, u).some((s) => s.status === 'failed'))).toBe(true);

    hook.received.length = 0;
    sim.advanceClock(DAY);
    for (const u of limited) await post(PN_A2, send(u, 'promo'));
    await sim.flushWebhooks();
    expect(limited.some((u) => statusesOf(hook, u).some((s) => s.status === 'sent'))).toBe(true);
  });

  it('blocks marketing templates to +1 numbers when told to', async () => {
    sim.configure({ rules: { usMarketingBlocked: true } });
    await post(PN_A1, send('12025550123', 'promo'));
    await post(PN_A1, send('12025550124', 'aviso'));
    await sim.flushWebhooks();
    expect(statusesOf(hook, '12025550123').map((s) => [s.status, s.errors?.[0].code])).toEqual([['failed', 131049]]);
    expect(statusesOf(hook, '12025550124').map((s) => s.status)).toEqual(['sent', 'delivered']);
  });

  it('posts user_preferences on stop and resume, and fails marketing with 131050 while stopped', async () => {
    const user = phone(2000);
    await sim.setMarketingPreference({ phoneNumberId: PN_A1, user, value: 'stop' });
    const [pref] = changes(hook, 'user_preferences');
    expect(pref).toMatchObject({ wabaId: WABA_A, field: 'user_preferences' });
    expect(pref.value).toEqual({
      messaging_product: 'whatsapp',
      metadata: { display_phone_number: '5491150000001', phone_number_id: PN_A1 },
      contacts: [{ profile: { name: expect.any(String) }, wa_id: user, user_id: sim.bsuidOf(PN_A1, user) }],
      user_preferences: [{
        wa_id: user, user_id: sim.bsuidOf(PN_A1, user), detail: 'User requested to stop marketing messages', category: 'marketing_messages', value: 'stop', timestamp: expect.any(Number),
      }],
    });
    await post(PN_A1, send(user, 'promo'));
    await post(PN_A1, send(user, 'aviso'));
    await sim.flushWebhooks();
    expect(statusesOf(hook, user).map((s) => [s.status, s.errors?.[0].code]).sort()).toEqual([['delivered', undefined], ['failed', 131050], ['sent', undefined]]);

    hook.received.length = 0;
    await sim.setMarketingPreference({ phoneNumberId: PN_A1, user, value: 'resume' });
    expect(changes(hook, 'user_preferences')[0].value.user_preferences[0]).toMatchObject({ value: 'resume', detail: 'User requested to resume marketing messages' });
    await post(PN_A1, send(user, 'promo'));
    await sim.flushWebhooks();
    expect(statusesOf(hook, user).map((s) => s.status)).toEqual(['sent', 'delivered']);
    expect(() => sim.setMarketingPreference({ phoneNumberId: PN_A1, user, value: 'maybe' as never })).toThrow(/stop/);
  });

  it('upgrades throughput: 131057 during the upgrade, then HIGH at 1,000 msg/s and a THROUGHPUT_UPGRADE webhook', async () => {
    expect((await get(PN_B1, 'throughput')).json.throughput).toEqual({ level: 'STANDARD' });
    const done = sim.upgradeThroughput(PN_B1, 300);
    const during = await post(PN_B1, send(phone(3000), 'aviso'));
    expect([during.status, during.json.error.code]).toEqual([500, 131057]);
    await done;
    expect((await get(PN_B1, 'throughput')).json.throughput).toEqual({ level: 'HIGH' });
    const [upgrade] = changes(hook, 'phone_number_quality_update');
    expect(upgrade).toMatchObject({ wabaId: WABA_B, time: expect.any(Number) });
    expect(upgrade.value).toEqual({ display_phone_number: '5491150000003', event: 'THROUGHPUT_UPGRADE', max_daily_conversations_per_business: 'TIER_250' });
    // 1,000 msg/s enforced: 150 sends in a burst all pass where 80 did before.
    const burst = await Promise.all(Array.from({ length: 150 }, (_, i) => post(PN_B1, send(phone(3100 + i), 'aviso'))));
    expect(burst.filter((r) => r.status === 200)).toHaveLength(150);
    expect(() => sim.upgradeThroughput(PN_B1, 61_000)).toThrow(/durationMs/);
  });

  it('fixes coexistence numbers at 20 msg/s and reports is_on_biz_app', async () => {
    sim.addNumber({ phoneNumberId: '5301', wabaId: WABA_A, token: 'tok-a', displayPhoneNumber: '5491150000009', businessId: BUSINESS, throughput: 80, coexistence: true });
    expect((await get('5301', 'throughput,is_on_biz_app')).json).toEqual({ throughput: { level: 'STANDARD' }, is_on_biz_app: true, id: '5301' });
    expect(() => sim.setThroughput('5301', 80)).toThrow(/20 messages/);
    expect(() => sim.upgradeThroughput('5301')).toThrow(/20 messages/);
    const burst = await Promise.all(Array.from({ length: 30 }, (_, i) => post('5301', send(phone(4000 + i), 'aviso'))));
    expect(burst.filter((r) => r.status === 200)).toHaveLength(20);
    expect(burst.filter((r) => r.json?.error?.code === 130429)).toHaveLength(10);
  });

  it('prices statuses with PMP types and categories, on sent and delivered', async () => {
    const user = phone(5000);
    await post(PN_A1, send(user, 'promo'));
    await sim.flushWebhooks();
    const pricing = (u: string) => statusesOf(hook, u).map((s) => [s.status, s.pricing]);
    expect(pricing(user)).toEqual([
      ['sent', { billable: true, pricing_model: 'PMP', type: 'regular', category: 'marketing' }],
      ['delivered', { billable: true, pricing_model: 'PMP', type: 'regular', category: 'marketing' }],
    ]);

    hook.received.length = 0;
    await sim.sendInbound({ phoneNumberId: PN_A1, from: user, text: 'consulta' });
    await post(PN_A1, { messaging_product: 'whatsapp', to: user, type: 'text', text: { body: 'Hola' } });
    await post(PN_A1, send(user, 'aviso'));
    await sim.flushWebhooks();
    expect(statusesOf(hook, user).filter((s) => s.status === 'sent').map((s) => s.pricing)).toEqual([
      { billable: false, pricing_model: 'PMP', type: 'free_customer_service', category: 'service' },
      { billable: false, pricing_model: 'PMP', type: 'free_customer_service', category: 'utility' },
    ]);

    hook.received.length = 0;
    sim.configure({ rules: { marketingLite: true, pricingBillableField: false } });
    await post(PN_A1, send(phone(5001), 'promo'));
    sim.configure({ rules: { marketingLite: false, freeEntryPoint: true } });
    await post(PN_A1, send(phone(5002), 'promo'));
    await sim.flushWebhooks();
    expect(statusesOf(hook, phone(5001))[0].pricing).toEqual({ pricing_model: 'PMP', type: 'regular', category: 'marketing_lite' });
    expect(statusesOf(hook, phone(5002))[0].pricing).toEqual({ pricing_model: 'PMP', type: 'free_entry_point', category: 'marketing' });
    expect(statusesOf(hook, phone(5002)).every((s) => s.status !== 'failed')).toBe(true);
  });

  it('adds value-level errors to status posts when told to', async () => {
    sim.configure({ rules: { valueErrorsShare: 1 } });
    await post(PN_A1, send(phone(5100), 'aviso'));
    await sim.flushWebhooks();
    const values = changes(hook, 'messages').map((c) => c.value);
    expect(values.length).toBeGreaterThan(0);
    for (const v of values) expect(v.errors).toEqual([{ code: 131000, title: expect.any(String), message: expect.any(String), error_data: { details: expect.any(String) }, href: expect.any(String) }]);
  });

  it('posts account_update bans and restrictions and blocks template sends while they last', async () => {
    await sim.accountUpdate({ wabaId: WABA_B, event: 'DISABLED_UPDATE', banState: 'DISABLE' });
    const [ban] = changes(hook, 'account_update');
    expect(ban).toMatchObject({ wabaId: WABA_B, time: expect.any(Number) });
    expect(ban.value).toEqual({ event: 'DISABLED_UPDATE', ban_info: { waba_ban_state: 'DISABLE', waba_ban_date: expect.stringMatching(/^\d{4}-\d\d-\d\d$/) } });
    const blocked = await post(PN_B1, send(phone(6000), 'aviso'));
    expect([blocked.status, blocked.json.error.code]).toEqual([403, 131031]);
    expect((await post(PN_A1, send(phone(6000), 'aviso'))).status).toBe(200);
    await sim.accountUpdate({ wabaId: WABA_B, event: 'DISABLED_UPDATE', banState: 'REINSTATE' });
    expect((await post(PN_B1, send(phone(6001), 'aviso'))).status).toBe(200);

    hook.received.length = 0;
    await sim.accountUpdate({ wabaId: WABA_A, event: 'ACCOUNT_RESTRICTION', restrictionType: 'RESTRICTED_BIZ_INITIATED_MESSAGING', expiresInMs: 200, phoneNumber: '5491150000001' });
    expect(changes(hook, 'account_update')[0].value).toEqual({
      event: 'ACCOUNT_RESTRICTION', phone_number: '5491150000001',
      restriction_info: [{ restriction_type: 'RESTRICTED_BIZ_INITIATED_MESSAGING', expiration: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+0000$/) }],
    });
    expect((await post(PN_A2, send(phone(6002), 'aviso'))).json.error.code).toBe(131031);
    await new Promise((r) => setTimeout(r, 250));
    expect((await post(PN_A2, send(phone(6002), 'aviso'))).status).toBe(200);

    hook.received.length = 0;
    await sim.accountUpdate({ wabaId: WABA_A, event: 'ACCOUNT_VIOLATION', violationType: 'SCAM' });
    expect(changes(hook, 'account_update')[0].value).toEqual({ event: 'ACCOUNT_VIOLATION', violation_info: { violation_type: 'SCAM' } });
  });
});
