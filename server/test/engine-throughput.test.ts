import { eq, sql } from 'drizzle-orm';
import { whatsappAccounts } from '../src/db/schema/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retryDecision } from '../src/engine/campaigns/retry-policy';
import { MAINTENANCE_HOLD_MS } from '../src/engine/campaigns/sender';
import { readThroughputUpgrades } from '../src/engine/campaigns/throughput-webhook';
import { rowsOf } from '../src/db/sql';
import type { GraphClient } from '../src/integrations/whatsapp/graph-client';
import { loadSendingAccount } from '../src/services/whatsapp-accounts/account-secrets';
import { checkPhoneNumber } from '../src/services/whatsapp-accounts/phone-check';
import { effectiveRatePerSecond, metaRatePerSecond } from '../src/services/whatsapp-accounts/throughput';
import { insertWhatsAppAccount } from './helpers/campaign-fixtures';
import { APP_SECRET, startEngineBed, waitFor, type EngineBed } from './helpers/engine-bed';
import { postWebhook } from './helpers/webhook';

/**
 * Meta's throughput per number: read on test and refresh, raised by the
 * THROUGHPUT_UPGRADE webhook, applied by a running sender without a restart (capped by the
 * operator's rate), and 131057 (maintenance during the upgrade) waits and retries.
 */

const A = { phoneNumberId: '3101', wabaId: '4101', token: 'tok-thr-a', rate: 1000 };
const B = { phoneNumberId: '3102', wabaId: '4102', token: 'tok-thr-b', rate: 50 };
const DISPLAY = '5491100000000';

let bed: EngineBed;
beforeAll(async () => {
  bed = await startEngineBed({
    numbers: [A, B],
    contacts: 400,
    // Senders re-read their number often here, so a change shows within the test's patience.
    engine: { accountRefreshMs: 100 },
  });
});
afterAll(() => bed?.close());

const account = async (id: number) =>
  (await rowsOf<{ throughput_level: string | null; is_on_biz_app: boolean | null; display_phone_number: string | null }>(
    bed.t.ctx.db,
    sql`select throughput_level, is_on_biz_app, display_phone_number from whatsapp_accounts where id = ${id}`,
  ))[0];

/** Meta's `phone_number_quality_update` with `event: THROUGHPUT_UPGRADE`, as its webhook reference shows it. */
const upgrade = (wabaId: string, display: string, event = 'THROUGHPUT_UPGRADE') => ({
  object: 'whatsapp_business_account',
  entry: [
    {
      id: wabaId,
      time: 1751247548,
      changes: [
        {
          field: 'phone_number_quality_update',
          value: { display_phone_number: display, event, current_limit: 'TIER_UNLIMITED', max_daily_conversations_per_business: 'TIER_UNLIMITED' },
        },
      ],
    },
  ],
});

/**
 * The quality-update webhooks this test posted are applied. Only those are awaited: the campaign
 * sending meanwhile keeps the simulator posting status webhooks, so the inbox as a whole is
 * seldom empty at the instant it is looked at.
 */
const inboxEmpty = () =>
  waitFor(
    () =>
      rowsOf<{ n: number }>(
        bed.t.ctx.db,
        sql`select count(*)::int as n from webhook_events where process_after <= now() and payload::text like '%phone_number_quality_update%'`,
      ),
    ([r]) => Number(r.n) === 0,
    10_000,
    'quality-update webhooks applied',
  );

describe('Meta throughput level', () => {
  it('maps levels to rates: STANDARD 80, HIGH 1,000, coexistence 20, unknown leaves the configured rate', () => {
    expect(metaRatePerSecond({ throughputLevel: 'STANDARD', isOnBizApp: false })).toBe(80);
    expect(metaRatePerSecond({ throughputLevel: 'high', isOnBizApp: null })).toBe(1000);
    expect(metaRatePerSecond({ throughputLevel: 'HIGH', isOnBizApp: true })).toBe(20);
    expect(metaRatePerSecond({ throughputLevel: null, isOnBizApp: null })).toBeNull();
    expect(effectiveRatePerSecond(1000, { throughputLevel: 'STANDARD', isOnBizApp: null })).toBe(80);
    expect(effectiveRatePerSecond(50, { throughputLevel: 'HIGH', isOnBizApp: null })).toBe(50);
    expect(effectiveRatePerSecond(250, { throughputLevel: null, isOnBizApp: null })).toBe(250);
  });

  it('reads throughput.level on test and refresh, and the effective rate follows', async () => {
    const { headers } = await bed.t.signUp();
    const C = { phoneNumberId: '3103', wabaId: '4103', token: 'tok-thr-c' };
    // The simulator reports HIGH above 80 msg/s and STANDARD otherwise.
    bed.sim.addNumber({ ...C, displayPhoneNumber: DISPLAY, throughput: 1000 });
    const created = await bed.t.app.inject({
      method: 'POST',
      url: '/api/whatsapp-accounts',
      headers,
      payload: {
        name: 'Número de prueba',
        phone_number: '+5491100000000',
        phone_number_id: C.phoneNumberId,
        business_account_id: C.wabaId,
        access_token: C.token,
        rate_per_second: 500,
      },
    });
    expect(created.statusCode).toBe(201);
    const id = created.json().id as number;
    const tested = await bed.t.app.inject({ method: 'POST', url: `/api/whatsapp-accounts/${id}/test`, headers });
    expect(tested.json()).toMatchObject({ success: true, account: { throughput_level: 'HIGH', throughput_rate_per_second: 1000, effective_rate_per_second: 500 } });
    bed.sim.setThroughput(C.phoneNumberId, 80);
    const refreshed = await bed.t.app.inject({ method: 'POST', url: `/api/whatsapp-accounts/${id}/refresh`, headers });
    expect(refreshed.json()).toMatchObject({ throughput_level: 'STANDARD', throughput_rate_per_second: 80, effective_rate_per_second: 80, rate_per_second: 500 });
    expect((await loadSendingAccount(bed.t.ctx.db, bed.t.ctx.secrets, id)).ratePerSecond).toBe(80);
  });

  it('a number also used in the WhatsApp Business app (is_on_biz_app) is paced at 20 msg/s', async () => {
    const { userId } = await bed.t.signUp();
    const id = await insertWhatsAppAccount(bed.t.ctx.db, bed.t.ctx.secrets, userId, { phoneNumberId: '3199', wabaId: '4199', token: 'tok-coex', ratePerSecond: 80 });
    // What Meta answers for a coexistence number (phone node fields).
    const graph = {
      call: async () => ({ id: '3199', display_phone_number: '15550783881', platform_type: 'CLOUD_API', is_on_biz_app: true, throughput: { level: 'STANDARD' } }),
    } as unknown as GraphClient;
    const [row] = await bed.t.ctx.db.select().from(whatsappAccounts).where(eq(whatsappAccounts.id, id));
    expect(metaRatePerSecond(row)).toBeNull();
    const updated = await checkPhoneNumber(bed.t.ctx.db, bed.t.ctx.secrets, graph, row);
    expect(updated.isOnBizApp).toBe(true);
    expect(updated.throughputLevel).toBe('STANDARD');
    expect((await loadSendingAccount(bed.t.ctx.db, bed.t.ctx.secrets, id)).ratePerSecond).toBe(20);
  });

  it('THROUGHPUT_UPGRADE raises a sending number to 1,000 msg/s without a restart; other WABAs and odd payloads change nothing', async () => {
    const [w] = bed.worlds;
    await bed.t.ctx.db.execute(
      sql`update whatsapp_accounts set throughput_level = 'STANDARD', display_phone_number = ${'+' + DISPLAY} where id = ${w.whatsappAccountId}`,
    );
    const campaign = await bed.launch(0, {}, 'Subida de rendimiento');
    const sender = await waitFor(
      async () => bed.engine.senders.get(w.whatsappAccountId) ?? null,
      (s) => s !== null && s.pacingRate > 0,
      5_000,
      'sender running',
    );
    expect(sender!.pacingRate).toBe(80);

    // Another portfolio's number with the same digits, and payloads without a number or with another event.
    for (const body of [upgrade('9999', DISPLAY), upgrade(A.wabaId, ''), upgrade(A.wabaId, DISPLAY, 'ONBOARDING'), { object: 'whatsapp_business_account', entry: [{ id: A.wabaId, changes: [{ field: 'phone_number_quality_update', value: 'raro' }] }] }]) {
      expect((await postWebhook(bed.t.app, APP_SECRET, body)).statusCode).toBe(200);
    }
    await inboxEmpty();
    expect((await account(w.whatsappAccountId)).throughput_level).toBe('STANDARD');
    expect(sender!.pacingRate).toBe(80);

    expect((await postWebhook(bed.t.app, APP_SECRET, upgrade(A.wabaId, DISPLAY))).statusCode).toBe(200);
    await inboxEmpty();
    expect((await account(w.whatsappAccountId)).throughput_level).toBe('HIGH');
    // The same sender (no restart) now paces at min(1,000 configured, 1,000 Meta).
    await waitFor(async () => sender!.pacingRate, (r) => r === 1000, 3_000, 'rate raised');
    expect(bed.engine.senders.get(w.whatsappAccountId)).toBe(sender);

    // The operator's rate stays the ceiling.
    await bed.t.ctx.db.execute(sql`update whatsapp_accounts set rate_per_second = 120 where id = ${w.whatsappAccountId}`);
    await waitFor(async () => sender!.pacingRate, (r) => r === 120, 3_000, 'configured rate as ceiling');
    await waitFor(() => bed.campaign(campaign.id), (c) => c.status === 'completed', 20_000, 'campaign completed');
  });

  it('reads only THROUGHPUT_UPGRADE events of phone_number_quality_update, by WABA and display digits', () => {
    expect(readThroughputUpgrades(upgrade('4101', '+1 555-078-3881'))).toEqual([{ wabaId: '4101', displayDigits: '15550783881' }]);
    expect(readThroughputUpgrades(JSON.stringify(upgrade('4101', '15550783881')))).toHaveLength(1);
    expect(readThroughputUpgrades(upgrade('4101', '15550783881', 'UPGRADE'))).toEqual([]);
    expect(readThroughputUpgrades('{no es json')).toEqual([]);
    expect(readThroughputUpgrades(null)).toEqual([]);
  });
});

describe('131057 (maintenance during a throughput upgrade)', () => {
  it('retries the recipient about a minute later and holds the whole number meanwhile', () => {
    const d = retryDecision(131057, 1);
    expect(d.retry).toBe(true);
    expect(d.delayMs).toBeGreaterThanOrEqual(60_000);
  });

  it('a sending campaign waits it out: the recipient is not failed, the number stops sending', async () => {
    const w = bed.worlds[1];
    bed.sim.injectFault({ kind: 'code', code: 131057, count: 1, phoneNumberId: B.phoneNumberId });
    const sentByB = () => bed.sim.messages().filter((m) => m.phoneNumberId === B.phoneNumberId).length;
    const campaign = await bed.launch(1, {}, 'Mantenimiento');
    const [held] = await waitFor(
      () =>
        rowsOf<{ status: string; error_code: number | null; attempts: number; wait_s: number }>(
          bed.t.ctx.db,
          sql`select status, error_code, attempts, extract(epoch from (next_attempt_at - now()))::float8 as wait_s
              from campaign_recipients where campaign_id = ${campaign.id} and error_code = 131057`,
        ),
      (rows) => rows.length === 1,
      5_000,
      'recipient refused with 131057',
    );
    expect(held.status).toBe('pending');
    expect(Number(held.wait_s)).toBeGreaterThan(50);
    const sender = bed.engine.senders.get(w.whatsappAccountId)!;
    expect(sender.heldForMs).toBeGreaterThan(MAINTENANCE_HOLD_MS - 5_000);
    // Held: nothing else leaves for this number, and nothing is failed.
    const before = sentByB();
    await new Promise((r) => setTimeout(r, 500));
    expect(sentByB()).toBe(before);
    const statuses = await bed.statuses(campaign.id);
    expect(statuses.failed ?? 0).toBe(0);
    expect((await bed.campaign(campaign.id)).status).toBe('sending');
  });
});
