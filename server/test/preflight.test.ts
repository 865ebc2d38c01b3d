import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Preflight } from '@masivo/contract/preflight';
import { rowsOf } from '../src/db/sql';
import { REASON_MESSAGE, US_AREA_CODES } from '../src/services/campaigns/audience-classifier';
import { createCampaign } from '../src/services/campaigns/create-campaign';
import { getCampaign } from '../src/services/campaigns/campaign-queries';
import { setFrequencyCap } from '../src/services/campaigns/frequency-cap';
import { startCampaign } from '../src/services/campaigns/start-campaign';
import { runPreflight } from '../src/services/campaigns/preflight';
import { createTestApp, type TestApp } from './helpers/app';
import { insertContact, seedCampaignWorld, type CampaignWorld } from './helpers/campaign-fixtures';

/**
 * The pre-flight: every exclusion reason, and `attempted` equal to the rows a start
 * freezes as pending on the same data, whatever the filter.
 */
let t: TestApp;
let userId: number;
let headers: { authorization: string };
let w: CampaignWorld;

const P = {
  a1: '+5491100000001',
  a2: '+5491100000002',
  a3: '+5491100000003',
  mx: '+5215512345678',
  co: '+573001234567',
  us: '+12025550123',
  ca: '+14165550123',
  capped: '+5491100000009',
  blocked: '+5491100000007',
  optedOut: '+5491100000008',
};

/** Marks `count` sends of a marketing campaign to this phone key, `daysAgo` days ago. */
async function pastSends(phoneKey: string, count: number, daysAgo: number) {
  for (let i = 0; i < count; i++) {
    const past = await createCampaign(t.ctx, userId, {
      name: `Anterior ${phoneKey} ${daysAgo} ${i}`,
      kommo_account_id: w.kommoAccountId,
      whatsapp_account_id: w.whatsappAccountId,
      template_id: w.templateId,
      filters: { searchQuery: 'nadie-coincide', tags: [], tagOperator: 'OR', excludedTags: [], customFieldFilters: {} },
    });
    await t.ctx.db.execute(sql`insert into campaign_recipients (campaign_id, user_id, phone, phone_key, status, sent_at)
      values (${past.id}, ${userId}, ${'+' + phoneKey}, ${phoneKey}, 'sent', now() - make_interval(days => ${daysAgo}::int))`);
  }
}

beforeAll(async () => {
  t = await createTestApp();
  ({ userId, headers } = await t.signUp());
  w = await seedCampaignWorld(t.ctx.db, t.ctx.secrets, userId, { number: { phoneNumberId: '1301', wabaId: '2301', token: 'tok' } });
  let k = 1;
  const add = (phone: string | null, tags: string[] = ['general'], phoneRaw?: string) =>
    insertContact(t.ctx.db, userId, w.kommoAccountId, { kommoId: k++, phone, phoneRaw: phoneRaw ?? phone, tags, name: `Cliente ${k}` });
  await add(P.a1, ['vip']);
  await add(P.a2, ['vip']);
  await add(P.a3);
  await add(P.mx, ['vip']);
  await add(P.co);
  await add(P.us, ['vip']);
  await add(P.ca);
  await add(P.capped, ['vip']);
  await add(P.blocked, ['vip']);
  await add(P.optedOut);
  await add(null, ['vip'], 'llamar a la oficina'); // no valid phone
  await add(null, ['general'], '');
  await add(P.a1, ['vip']); // the same person twice
  await add('+541100000002', ['general']); // a2 without the mobile 9: the same phone key
  await t.ctx.db.execute(sql`insert into blacklist (user_id, account_id, phone, phone_key, reason)
    values (${userId}, ${w.kommoAccountId}, ${P.blocked}, ${P.blocked.slice(1).replace(/^549/, '54')}, 'pidió baja')`);
  await t.ctx.db.execute(sql`insert into opt_outs (user_id, whatsapp_account_id, phone_key, phone, word)
    values (${userId}, ${w.whatsappAccountId}, ${P.optedOut.slice(1).replace(/^549/, '54')}, ${P.optedOut}, 'BAJA')`);
  await pastSends('541100000009', 2, 1); // capped: 2 marketing sends yesterday
  await pastSends('541100000003', 2, 10); // a3: 2 sends, but 10 days ago
  await setFrequencyCap(t.ctx.db, userId, { cap: { max_messages: 2, days: 7 } });
});
afterAll(() => t.close());

const filters = {
  all: { searchQuery: '', tags: [], tagOperator: 'OR' as const, excludedTags: [], customFieldFilters: {} },
  vip: { searchQuery: '', tags: ['vip'], tagOperator: 'OR' as const, excludedTags: [], customFieldFilters: {} },
  search: { searchQuery: 'Cliente 1', tags: [], tagOperator: 'OR' as const, excludedTags: [], customFieldFilters: {} },
};

const preflight = (filter: (typeof filters)[keyof typeof filters]) =>
  runPreflight(t.ctx.db, userId, {
    kommoAccountId: w.kommoAccountId,
    whatsappAccountId: w.whatsappAccountId,
    templateId: w.templateId,
    filters: filter,
    startAt: null,
  });

const byReason = (p: Preflight) => Object.fromEntries(p.excluded.map((e) => [e.reason, e.count]));

describe('the pre-flight', () => {
  it('counts every exclusion reason', async () => {
    const p = await preflight(filters.all);
    expect(byReason(p)).toEqual({
      invalid_phone: 2,
      duplicate: 2,
      blacklisted: 2,
      frequency_cap: 1,
      us_marketing: 1,
      template_unfit: 0,
    });
    // a1, a2, a3 (its sends are older than 7 days), mx, co, ca.
    expect(p.attempted).toBe(6);
    expect(p.matched).toBe(14);
    expect(p.excluded.find((e) => e.reason === 'us_marketing')?.label).toBe('EE.UU. (marketing)');
    expect(p.frequency_cap).toEqual({ max_messages: 2, days: 7 });
    // Countries of the attempted, priced with the shipped card: AR has a sourced marketing rate,
    // the others none ("sin tarifa"), so the estimate covers the three Argentines only.
    const countries = Object.fromEntries(p.cost.by_country.map((c) => [c.country, c.count]));
    expect(countries).toEqual({ AR: 3, MX: 1, CO: 1, CA: 1 });
    expect(p.cost).toMatchObject({ priced: 3, unpriced: 3 });
    const ar = p.cost.by_country.find((c) => c.country === 'AR')!;
    expect(ar.rate).toBeGreaterThan(0);
    expect(p.cost.total).toBeCloseTo(3 * ar.rate!, 6);
    // No known daily limit: one wave; the ETA is the attempted at the number's rate.
    expect(p.budget).toMatchObject({ daily_limit: null, waves: 1 });
    expect(p.eta.rate_per_second).toBeGreaterThan(0);
  });

  it('a utility template reaches US numbers and is not capped', async () => {
    await t.ctx.db.execute(sql`update templates set category = 'UTILITY' where id = ${w.templateId}`);
    try {
      const p = await preflight(filters.all);
      expect(byReason(p)).toMatchObject({ us_marketing: 0, frequency_cap: 0 });
      expect(p.attempted).toBe(8);
    } finally {
      await t.ctx.db.execute(sql`update templates set category = 'MARKETING' where id = ${w.templateId}`);
    }
  });

  it('an unfit template excludes everyone otherwise sendable, and says why', async () => {
    await t.ctx.db.execute(sql`update templates set status = 'pending' where id = ${w.templateId}`);
    try {
      const p = await preflight(filters.all);
      expect(p.attempted).toBe(0);
      expect(byReason(p).template_unfit).toBe(6);
      expect(p.template_problem).toMatch(/no está aprobada/);
    } finally {
      await t.ctx.db.execute(sql`update templates set status = 'approved' where id = ${w.templateId}`);
    }
  });

  it('splits the attempted into waves of the portfolio daily limit', async () => {
    await t.ctx.db.execute(sql`update whatsapp_accounts set daily_limit = 4 where id = ${w.whatsappAccountId}`);
    try {
      const p = await preflight(filters.all);
      // 6 attempted, 4 places a day: today 4, tomorrow 2.
      expect(p.budget).toMatchObject({ daily_limit: 4, used: 0, left: 4, waves: 2 });
      expect(p.eta.waiting_seconds).toBeGreaterThanOrEqual(86_400);
    } finally {
      await t.ctx.db.execute(sql`update whatsapp_accounts set daily_limit = null where id = ${w.whatsappAccountId}`);
    }
  });

  for (const [name, filter] of Object.entries(filters)) {
    it(`attempted equals the rows frozen as pending (filter ${name})`, async () => {
      const p = await preflight(filter);
      const created = await createCampaign(t.ctx, userId, {
        name: `Exacta ${name}`,
        kommo_account_id: w.kommoAccountId,
        whatsapp_account_id: w.whatsappAccountId,
        template_id: w.templateId,
        filters: filter,
      });
      expect(created.total_recipients).toBe(p.matched);
      await startCampaign(t.ctx, userId, created.id);
      const rows = await rowsOf<{ status: string; error_message: string | null; n: number }>(
        t.ctx.db,
        sql`select status, error_message, count(*)::int as n from campaign_recipients where campaign_id = ${created.id} group by 1, 2`,
      );
      const pending = rows.filter((r) => r.status === 'pending').reduce((s, r) => s + r.n, 0);
      expect(pending).toBe(p.attempted);
      for (const e of p.excluded) {
        const frozen = rows.find((r) => r.status === 'skipped' && r.error_message === REASON_MESSAGE[e.reason])?.n ?? 0;
        expect(frozen, e.reason).toBe(e.count);
      }
      const campaign = await getCampaign(t.ctx.db, userId, created.id);
      expect(campaign).toMatchObject({ total_recipients: p.matched, pending_count: p.attempted, skipped_count: p.matched - p.attempted });
      // After the freeze, the campaign's own pre-flight reads the frozen rows: the same figures.
      const res = await t.app.inject({ method: 'GET', url: `/api/campaigns/${created.id}/preflight`, headers });
      expect(res.statusCode).toBe(200);
      const frozen = res.json() as Preflight;
      expect(frozen.attempted).toBe(p.attempted);
      expect(byReason(frozen)).toEqual(byReason(p));
    });
  }

  it('the ETA waits for the recipients’ sending hours', async () => {
    const anyTime = await preflight(filters.vip);
    expect(anyTime.eta.waiting_seconds).toBe(0);
    // A window opening three hours from now in Buenos Aires (where the Argentines are), every day.
    const hour = Number(new Intl.DateTimeFormat('en-GB', { hour: '2-digit', hourCycle: 'h23', timeZone: 'America/Argentina/Buenos_Aires' }).format(new Date()));
    const hh = (h: number) => `${String(h % 24).padStart(2, '0')}:00`;
    const later = await runPreflight(t.ctx.db, userId, {
      kommoAccountId: w.kommoAccountId,
      whatsappAccountId: w.whatsappAccountId,
      templateId: w.templateId,
      filters: filters.vip,
      startAt: null,
      hours: { days: [1, 2, 3, 4, 5, 6, 7], start: hh(hour + 3), end: hh(hour + 4), skip_holidays: false },
    });
    expect(later.attempted).toBe(anyTime.attempted);
    // At least two hours of waiting for the window, and the finish moves as much.
    expect(later.eta.waiting_seconds).toBeGreaterThan(2 * 3600);
    expect(Date.parse(later.eta.finish_at) - Date.parse(anyTime.eta.finish_at)).toBeGreaterThan(2 * 3600 * 1000);
  });

  it('knows the US area codes from libphonenumber', () => {
    expect(US_AREA_CODES).toContain('202');
    expect(US_AREA_CODES).not.toContain('416'); // Toronto
    expect(US_AREA_CODES).not.toContain('787'); // Puerto Rico
  });
});

describe('the pre-flight API', () => {
  it('answers the create payload (name optional) and the saved campaign', async () => {
    const body = { kommo_account_id: w.kommoAccountId, whatsapp_account_id: w.whatsappAccountId, template_id: w.templateId, filters: filters.vip };
    const res = await t.app.inject({ method: 'POST', url: '/api/campaigns/preflight', headers, payload: body });
    expect(res.statusCode).toBe(200);
    const p = res.json() as Preflight;
    // vip: a1, a2, mx, us, capped, blocked, no phone, a1 again.
    expect(p.matched).toBe(8);
    expect(p.attempted).toBe(3);
    const draft = await createCampaign(t.ctx, userId, { name: 'Borrador', ...body });
    const saved = await t.app.inject({ method: 'GET', url: `/api/campaigns/${draft.id}/preflight`, headers });
    expect(saved.statusCode).toBe(200);
    expect((saved.json() as Preflight).attempted).toBe(3);
  });

  it('refuses bad payloads in Spanish and foreign references with 404', async () => {
    const post = (payload: unknown) => t.app.inject({ method: 'POST', url: '/api/campaigns/preflight', headers, payload: payload as object });
    const bad = await post({ kommo_account_id: 'x', whatsapp_account_id: w.whatsappAccountId, template_id: w.templateId });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatch(/cuenta Kommo/i);
    const missing = await post({ kommo_account_id: w.kommoAccountId, whatsapp_account_id: w.whatsappAccountId });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error).toMatch(/plantilla/i);

    const other = await t.signUp();
    const theirs = await seedCampaignWorld(t.ctx.db, t.ctx.secrets, other.userId, { number: { phoneNumberId: '1302', wabaId: '2302', token: 'tok2' }, contacts: 3 });
    const foreign = await post({ kommo_account_id: theirs.kommoAccountId, whatsapp_account_id: w.whatsappAccountId, template_id: w.templateId });
    expect(foreign.statusCode).toBe(404);
    const foreignTemplate = await post({ kommo_account_id: w.kommoAccountId, whatsapp_account_id: w.whatsappAccountId, template_id: theirs.templateId });
    expect(foreignTemplate.statusCode).toBe(404);
    const draft = await createCampaign(t.ctx, userId, {
      name: 'Mía',
      kommo_account_id: w.kommoAccountId,
      whatsapp_account_id: w.whatsappAccountId,
      template_id: w.templateId,
    });
    const peek = await t.app.inject({ method: 'GET', url: `/api/campaigns/${draft.id}/preflight`, headers: other.headers });
    expect(peek.statusCode).toBe(404);
  });

  it('reads and saves the frequency cap, refusing bad values in Spanish', async () => {
    const other = await t.signUp();
    const get = () => t.app.inject({ method: 'GET', url: '/api/settings/frequency-cap', headers: other.headers });
    expect((await get()).json()).toEqual({ cap: null });
    const put = (payload: unknown) =>
      t.app.inject({ method: 'PUT', url: '/api/settings/frequency-cap', headers: other.headers, payload: payload as object });
    for (const [payload, message] of [
      [{ cap: { max_messages: 0, days: 7 } }, /Mínimo 1 mensaje/],
      [{ cap: { max_messages: 2, days: 91 } }, /Máximo 90 días/],
      [{ cap: { max_messages: 1.5, days: 7 } }, /entero/],
    ] as const) {
      const res = await put(payload);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatch(message);
    }
    expect((await get()).json()).toEqual({ cap: null });
    expect((await put({ cap: { max_messages: 2, days: 7 } })).json()).toEqual({ cap: { max_messages: 2, days: 7 } });
    expect((await get()).json()).toEqual({ cap: { max_messages: 2, days: 7 } });
    // One tenant's cap is not another's.
    expect((await t.app.inject({ method: 'GET', url: '/api/settings/frequency-cap', headers })).json()).toEqual({ cap: { max_messages: 2, days: 7 } });
    expect((await put({ cap: null })).json()).toEqual({ cap: null });
  });
});
