import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCampaignEngine, type CampaignEngine } from '../src/engine/campaigns/index';
import type { GraphClient, GraphRequest } from '../src/integrations/whatsapp/graph-client';
import { rowsOf } from '../src/db/sql';
import { parseDailyLimit, readLimitUpdates } from '../src/services/whatsapp-accounts/messaging-limit';
import { checkPhoneNumber } from '../src/services/whatsapp-accounts/phone-check';
import { whatsappAccounts } from '../src/db/schema/index';
import { eq } from 'drizzle-orm';
import { createTestApp, type TestApp } from './helpers/app';
import { postWebhook } from './helpers/webhook';
import { insertWhatsAppAccount } from './helpers/campaign-fixtures';
import { APP_SECRET, waitFor } from './helpers/engine-bed';
import {
  businessCapabilityUpdate,
  phoneNumberNewShape,
  phoneNumberOldShape,
  qualityUpdateNewShape,
  qualityUpdateOldShape,
  wabaWithOwner,
} from './fixtures/meta-limits';

let t: TestApp;
let engine: CampaignEngine;
let userId: number;
let stranger: number;

beforeAll(async () => {
  t = await createTestApp({ WHATSAPP_APP_SECRET: APP_SECRET });
  ({ userId } = await t.signUp());
  ({ userId: stranger } = await t.signUp());
  engine = startCampaignEngine(t.ctx, { runSenders: false, runScheduler: false, inboxPollMs: 20 });
});
afterAll(async () => {
  await engine?.stop();
  await t?.close();
});

const seed = (owner: number, phoneNumberId: string, wabaId: string, ownerVerified = true) =>
  insertWhatsAppAccount(t.ctx.db, t.ctx.secrets, owner, { phoneNumberId, wabaId, token: `tok-${phoneNumberId}`, ownerVerified });

const account = async (id: number) => {
  const [row] = await t.ctx.db.select().from(whatsappAccounts).where(eq(whatsappAccounts.id, id));
  return row!;
};

/** A Graph client answering the number and WABA reads with Meta's reference payloads. */
const fakeGraph = (phone: object, waba: object | Error): GraphClient & { calls: GraphRequest[] } => {
  const calls: GraphRequest[] = [];
  return {
    calls,
    async call<T>(req: GraphRequest): Promise<T> {
      calls.push(req);
      // The WABA is asked for its owner (with the Marketing Messages API state beside it).
      if (String(req.query?.fields ?? '').split(',').includes('owner_business_info')) {
        if (waba instanceof Error) throw waba;
        return waba as T;
      }
      return phone as T;
    },
  };
};

const inboxEmpty = () =>
  waitFor(
    () => rowsOf<{ n: number }>(t.ctx.db, sql`select count(*)::int as n from webhook_events`),
    ([r]) => Number(r.n) === 0,
    5_000,
    'inbox drained',
  );

describe('the limit in every shape Meta uses', () => {
  it('reads tiers (new and deprecated) and counts (-1 = unlimited); ignores what is no limit', () => {
    expect(parseDailyLimit('TIER_250')).toBe(250);
    expect(parseDailyLimit('TIER_2K')).toBe(2000);
    expect(parseDailyLimit('TIER_10K')).toBe(10_000);
    expect(parseDailyLimit('TIER_100K')).toBe(100_000);
    expect(parseDailyLimit('TIER_UNLIMITED')).toBe(-1);
    expect(parseDailyLimit('TIER_50')).toBe(50);
    expect(parseDailyLimit('TIER_1K')).toBe(1000);
    expect(parseDailyLimit(2000)).toBe(2000);
    expect(parseDailyLimit(-1)).toBe(-1);
    expect(parseDailyLimit('100000')).toBe(100_000);
    expect(parseDailyLimit('TIER_NOT_SET')).toBeNull();
    expect(parseDailyLimit('')).toBeNull();
    expect(parseDailyLimit(-7)).toBeNull();
    expect(parseDailyLimit(null)).toBeNull();
    expect(parseDailyLimit({ tier: 'TIER_2K' })).toBeNull();
  });

  it('finds the limit in both webhook fields and in the old current_limit', () => {
    expect(readLimitUpdates(businessCapabilityUpdate('9', 2000))).toEqual([{ wabaId: '9', limit: 2000, at: new Date(1739321024 * 1000) }]);
    expect(readLimitUpdates(businessCapabilityUpdate('9', -1))[0]!.limit).toBe(-1);
    expect(readLimitUpdates(qualityUpdateOldShape('9', 'TIER_10K'))[0]!.limit).toBe(10_000);
    expect(readLimitUpdates(qualityUpdateNewShape('9', 'TIER_2K'))[0]!.limit).toBe(2000);
    expect(readLimitUpdates(qualityUpdateOldShape('9', 'TIER_NOT_SET'))).toEqual([]);
    expect(readLimitUpdates({ entry: [{ id: '9', changes: [{ field: 'business_capability_update', value: { max_phone_numbers_per_waba: 2 } }] }] })).toEqual([]);
    expect(readLimitUpdates('not json')).toEqual([]);
  });
});

describe('reading the limit when an account is tested or refreshed', () => {
  it('stores the new field, the owning portfolio, and shares the limit with every number of the portfolio', async () => {
    const a = await seed(userId, '5101', '6101');
    const b = await seed(userId, '5102', '6102');
    const other = await seed(stranger, '5103', '6103');
    // b's WABA belongs to the same portfolio: learnt from its own check first.
    await checkPhoneNumber(t.ctx.db, t.ctx.secrets, fakeGraph(phoneNumberOldShape, wabaWithOwner('6102', 'P-77')), await account(b));
    const graph = fakeGraph(phoneNumberNewShape, wabaWithOwner('6101', 'P-77'));
    const checked = await checkPhoneNumber(t.ctx.db, t.ctx.secrets, graph, await account(a));
    expect(graph.calls.map((c) => c.path)).toEqual(['/5101', '/6101']);
    expect(checked).toMatchObject({ businessPortfolioId: 'P-77', dailyLimit: 250, messagingLimit: 'TIER_250' });
    expect(await account(b)).toMatchObject({ businessPortfolioId: 'P-77', dailyLimit: 250 });
    expect((await account(other)).dailyLimit).toBeNull();
  });

  it('accepts the deprecated messaging_limit_tier, and falls back to the WABA when Meta does not name the portfolio', async () => {
    const c = await seed(userId, '5201', '6201');
    const checked = await checkPhoneNumber(t.ctx.db, t.ctx.secrets, fakeGraph(phoneNumberOldShape, new Error('no access')), await account(c));
    expect(checked).toMatchObject({ businessPortfolioId: null, dailyLimit: 10_000, messagingLimit: 'TIER_10K' });
    const noOwner = await checkPhoneNumber(t.ctx.db, t.ctx.secrets, fakeGraph(phoneNumberNewShape, { id: '6201' }), await account(c));
    expect(noOwner).toMatchObject({ businessPortfolioId: null, dailyLimit: 250 });
  });
});

describe('limit webhooks', () => {
  it('business_capability_update sets the portfolio limit on every number of it; an older event never replaces a newer one', async () => {
    const a = await seed(userId, '5301', '6301');
    const b = await seed(userId, '5302', '6302');
    await t.ctx.db.update(whatsappAccounts).set({ businessPortfolioId: 'P-88' }).where(eq(whatsappAccounts.id, a));
    await t.ctx.db.update(whatsappAccounts).set({ businessPortfolioId: 'P-88' }).where(eq(whatsappAccounts.id, b));
    const foreign = await seed(stranger, '5303', '6303');
    await t.ctx.db.update(whatsappAccounts).set({ businessPortfolioId: 'P-88' }).where(eq(whatsappAccounts.id, foreign));

    expect((await postWebhook(t.app, APP_SECRET, businessCapabilityUpdate('6301', 2000, 1_800_000_000))).statusCode).toBe(200);
    await inboxEmpty();
    expect(await account(a)).toMatchObject({ dailyLimit: 2000, messagingLimit: 'TIER_2K' });
    expect((await account(b)).dailyLimit).toBe(2000);
    // Another tenant's account on a portfolio with the same id is not touched.
    expect((await account(foreign)).dailyLimit).toBeNull();

    await postWebhook(t.app, APP_SECRET, businessCapabilityUpdate('6302', 250, 1_700_000_000));
    await inboxEmpty();
    expect((await account(a)).dailyLimit).toBe(2000);

    await postWebhook(t.app, APP_SECRET, businessCapabilityUpdate('6302', -1, 1_800_000_100));
    await inboxEmpty();
    expect(await account(a)).toMatchObject({ dailyLimit: -1, messagingLimit: 'TIER_UNLIMITED' });
  });

  it('phone_number_quality_update: current_limit (old) and max_daily_conversations_per_business (new)', async () => {
    const a = await seed(userId, '5401', '6401');
    await postWebhook(t.app, APP_SECRET, qualityUpdateOldShape('6401', 'TIER_10K', 1_800_000_000));
    await inboxEmpty();
    expect((await account(a)).dailyLimit).toBe(10_000);
    await postWebhook(t.app, APP_SECRET, qualityUpdateNewShape('6401', 'TIER_2K', 1_800_000_500));
    await inboxEmpty();
    expect((await account(a)).dailyLimit).toBe(2000);
  });

  it('an unproven owner, an unknown WABA or an odd value changes nothing and is answered 200', async () => {
    const unproven = await seed(userId, '5501', '6501', false);
    for (const payload of [
      businessCapabilityUpdate('6501', 2000),
      businessCapabilityUpdate('no-such-waba', 2000),
      qualityUpdateOldShape('6501', 'TIER_WHATEVER'),
      { object: 'whatsapp_business_account', entry: [{ id: '6501', changes: [{ field: 'business_capability_update', value: 'x' }] }] },
    ]) {
      expect((await postWebhook(t.app, APP_SECRET, payload)).statusCode).toBe(200);
    }
    await inboxEmpty();
    expect((await account(unproven)).dailyLimit).toBeNull();
  });
});

describe('the account card', () => {
  it('shows the portfolio limit and the unique recipients used in 24 h, within the tenant', async () => {
    const { userId: owner, headers } = await t.signUp();
    const a = await seed(owner, '5601', '6601');
    const b = await seed(owner, '5602', '6602');
    for (const id of [a, b]) {
      await t.ctx.db.update(whatsappAccounts).set({ businessPortfolioId: 'P-99', dailyLimit: 2000 }).where(eq(whatsappAccounts.id, id));
    }
    await t.ctx.db.execute(sql`insert into portfolio_reach (user_id, portfolio_id, phone_key, reached_at) values
      (${owner}, 'P-99', '5491100000001', now() - interval '1 hour'),
      (${owner}, 'P-99', '5491100000002', now() - interval '23 hours'),
      (${owner}, 'P-99', '5491100000003', now() - interval '25 hours'),
      (${stranger}, 'P-99', '5491100000004', now())`);
    const list = await t.app.inject({ method: 'GET', url: '/api/whatsapp-accounts', headers });
    expect(list.statusCode).toBe(200);
    const cards = list.json() as Array<{ id: number; daily_limit: number; daily_limit_used: number; business_portfolio_id: string }>;
    for (const id of [a, b]) {
      expect(cards.find((c) => c.id === id)).toMatchObject({ daily_limit: 2000, daily_limit_used: 2, business_portfolio_id: 'P-99' });
    }
    const one = await t.app.inject({ method: 'GET', url: `/api/whatsapp-accounts/${a}`, headers });
    expect(one.json()).toMatchObject({ daily_limit: 2000, daily_limit_used: 2 });
  });
});

describe('claims on one limited portfolio at the same time', () => {
  it('never start more new people than the limit, whatever the interleaving of two numbers', async () => {
    const { claimWithinBudget } = await import('../src/engine/campaigns/portfolio-budget');
    const { seedCampaignWorld, insertContacts } = await import('./helpers/campaign-fixtures');
    const { createCampaign } = await import('../src/services/campaigns/create-campaign');
    const { startCampaign } = await import('../src/services/campaigns/start-campaign');
    const { userId: owner } = await t.signUp();
    const worlds = [
      await seedCampaignWorld(t.ctx.db, t.ctx.secrets, owner, { number: { phoneNumberId: '5701', wabaId: '6701', token: 'x' }, contacts: 30 }),
      await seedCampaignWorld(t.ctx.db, t.ctx.secrets, owner, { number: { phoneNumberId: '5702', wabaId: '6702', token: 'y' } }),
    ];
    // The second number's audience: 15 of the first one's people and 15 others.
    await insertContacts(t.ctx.db, owner, worlds[1]!.kommoAccountId, 30, 16);
    await t.ctx.db.execute(sql`update whatsapp_accounts set business_portfolio_id = 'P-C', daily_limit = 20 where user_id = ${owner}`);
    const ids: number[] = [];
    for (const w of worlds) {
      const c = await createCampaign(t.ctx, owner, { name: 'C', kommo_account_id: w.kommoAccountId, whatsapp_account_id: w.whatsappAccountId, template_id: w.templateId });
      ids.push((await startCampaign(t.ctx, owner, c.id)).id);
    }
    const results = await Promise.all(Array.from({ length: 24 }, (_, i) => claimWithinBudget(t.ctx.db, ids[i % 2]!, `w${i % 3}`, 4)));
    const phones = new Set(results.flatMap((r) => r.claimed.map((c) => c.phoneKey)));
    expect(phones.size).toBe(20);
    const [used] = await rowsOf<{ n: number }>(t.ctx.db, sql`select count(*)::int as n from portfolio_reach where user_id = ${owner}`);
    expect(Number(used!.n)).toBe(20);
    // Draining both: anyone already reached may still be claimed (free); new people never.
    for (const id of ids) {
      for (;;) {
        const r = await claimWithinBudget(t.ctx.db, id, 'w9', 4);
        for (const c of r.claimed) expect(phones.has(c.phoneKey)).toBe(true);
        if (!r.claimed.length) {
          expect(r.waitMs).toBeGreaterThan(23 * 3_600_000);
          break;
        }
      }
    }
    // Both campaigns now wait, with the time they resume.
    const waits = await rowsOf<{ w: boolean }>(t.ctx.db, sql`select limit_wait_until > now() + interval '23 hours' as w from campaigns where id in (${ids[0]!}, ${ids[1]!})`);
    expect(waits.map((w) => w.w)).toEqual([true, true]);
  });
});

describe('the count of the window between exact counts', () => {
  it('adds what other numbers stamped since, so a reused count never lets a claim overspend', async () => {
    const { claimWithinBudget } = await import('../src/engine/campaigns/portfolio-budget');
    const { seedCampaignWorld } = await import('./helpers/campaign-fixtures');
    const { createCampaign } = await import('../src/services/campaigns/create-campaign');
    const { startCampaign } = await import('../src/services/campaigns/start-campaign');
    const { userId: owner } = await t.signUp();
    const w = await seedCampaignWorld(t.ctx.db, t.ctx.secrets, owner, { number: { phoneNumberId: '5801', wabaId: '6801', token: 'z' }, contacts: 40 });
    await t.ctx.db.execute(sql`update whatsapp_accounts set business_portfolio_id = 'P-D', daily_limit = 100 where user_id = ${owner}`);
    const c = await createCampaign(t.ctx, owner, { name: 'D', kommo_account_id: w.kommoAccountId, whatsapp_account_id: w.whatsappAccountId, template_id: w.templateId });
    await startCampaign(t.ctx, owner, c.id);
    // An exact count (0 used), then 4 claimed.
    expect((await claimWithinBudget(t.ctx.db, c.id, 'w1', 4)).claimed).toHaveLength(4);
    // Meanwhile the portfolio's other numbers, in other processes, reached 93 other people.
    await t.ctx.db.execute(sql`insert into portfolio_reach (user_id, portfolio_id, phone_key, reached_at)
      select ${owner}, 'P-D', 'otro' || i, clock_timestamp() from generate_series(1, 93) i`);
    // 97 used: only 3 new people fit, although the last exact count said 0.
    const next = await claimWithinBudget(t.ctx.db, c.id, 'w1', 8);
    expect(next.claimed).toHaveLength(3);
    const last = await claimWithinBudget(t.ctx.db, c.id, 'w1', 8);
    expect(last.claimed).toHaveLength(0);
    expect(last.waitMs).toBeGreaterThan(23 * 3_600_000);
  });
});
