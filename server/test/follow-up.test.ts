import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Campaign } from '@masivo/contract/campaigns';
import type { Preflight } from '@masivo/contract/preflight';
import { rowsOf } from '../src/db/sql';
import { REASON_MESSAGE } from '../src/services/campaigns/audience-classifier';
import { setFrequencyCap } from '../src/services/campaigns/frequency-cap';
import { EMPTY_GROUP, NOT_SENT_YET } from '../src/services/campaigns/follow-up';
import { FIXED_LIST_AUDIENCE } from '../src/services/campaigns/update-campaign';
import { createTestApp, type TestApp } from './helpers/app';
import { insertContacts, seedCampaignWorld } from './helpers/campaign-fixtures';
import { seedSentCampaign, type SentCampaign } from './helpers/results-fixtures';

/**
 * "Nueva campaña para…" (follow-up campaigns): a draft over exactly the contacts of a group of another
 * campaign's recipients, as a frozen contact list, with the pre-flight applied to that list.
 */
let t: TestApp;
let userId: number;
let headers: { authorization: string };
let s: SentCampaign;

beforeAll(async () => {
  t = await createTestApp();
  ({ userId, headers } = await t.signUp());
  s = await seedSentCampaign(t, userId, { phoneNumberId: '1401', wabaId: '2401' });
  // Since the campaign was sent: person 8 was blacklisted, person 10 opted out.
  await t.ctx.db.execute(sql`insert into blacklist (user_id, account_id, phone, phone_key, reason)
    select user_id, account_id, phone, phone_key, 'pidió baja' from contacts where id = ${s.contactId(8)}`);
  await t.ctx.db.execute(sql`insert into opt_outs (user_id, whatsapp_account_id, phone_key, phone, word)
    select user_id, ${s.world.whatsappAccountId}, phone_key, phone, 'BAJA' from contacts where id = ${s.contactId(10)}`);
});
afterAll(() => t.close());

const count = (id: number, query: string) => t.app.inject({ method: 'GET', url: `/api/campaigns/${id}/follow-up/count?${query}`, headers });
const create = (id: number, payload: unknown, h = headers) => t.app.inject({ method: 'POST', url: `/api/campaigns/${id}/follow-up`, headers: h, payload: payload as never });
const campaignCount = async () => Number((await rowsOf<{ n: number }>(t.ctx.db, sql`select count(*)::int as n from campaigns`))[0]!.n);
const listCount = async () => Number((await rowsOf<{ n: number }>(t.ctx.db, sql`select count(*)::int as n from campaign_audience_contacts`))[0]!.n);
const byReason = (p: Preflight) => Object.fromEntries(p.excluded.filter((e) => e.count > 0).map((e) => [e.reason, e.count]));

const GROUPS: Array<{ name: string; payload: Record<string, unknown>; query: string; people: number[]; excluded: Record<string, number[]> }> = [
  { name: 'no leyeron en 24 h', payload: { group: 'unread', hours: 24 }, query: 'group=unread&hours=24', people: [3, 10], excluded: { blacklisted: [10] } },
  { name: 'no leyeron en 1 h', payload: { group: 'unread', hours: 1 }, query: 'group=unread&hours=1', people: [3, 4, 10], excluded: { blacklisted: [10] } },
  { name: 'leyeron y no respondieron', payload: { group: 'read_not_replied' }, query: 'group=read_not_replied', people: [2, 8], excluded: { blacklisted: [8] } },
  { name: 'no respondieron', payload: { group: 'not_replied' }, query: 'group=not_replied', people: [2, 3, 4, 8, 10], excluded: { blacklisted: [8, 10] } },
  { name: 'fallaron (reintentables)', payload: { group: 'failed_retryable' }, query: 'group=failed_retryable', people: [6, 7], excluded: {} },
  { name: 'tocaron «Sí»', payload: { group: 'tapped', button: 'Sí' }, query: `group=tapped&button=${encodeURIComponent('Sí')}`, people: [1], excluded: {} },
  { name: 'respondieron', payload: { group: 'replied' }, query: 'group=replied', people: [1, 9, 11], excluded: {} },
];

describe('what the follow-up count tells besides the count', () => {
  const HOUR = 3_600_000;
  const near = (iso: string | null, expected: number) => {
    expect(iso).not.toBeNull();
    expect(Math.abs(new Date(iso!).getTime() - expected)).toBeLessThan(60_000);
  };

  it('an empty "No leyeron" group says when it fills: the earliest unread send plus the hours', async () => {
    // Unread: person 3 sent 30 h ago, person 10 40 h ago, person 4 2 h ago. After 48 h nobody qualifies yet;
    // person 10 does 8 h from now.
    const res = await count(s.campaignId, 'group=unread&hours=48');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ group: 'unread', count: 0 });
    near(res.json().available_from, Date.now() + 8 * HOUR);
    const later = (await count(s.campaignId, 'group=unread&hours=720')).json();
    near(later.available_from, Date.now() - 40 * HOUR + 720 * HOUR);
  });

  it('a group that is not empty, or that no clock fills, has no date', async () => {
    expect((await count(s.campaignId, 'group=unread&hours=24')).json()).toMatchObject({ count: 2, available_from: null });
    const tapped = (await count(s.campaignId, `group=tapped&button=${encodeURIComponent('Quizás')}`)).json();
    expect(tapped).toMatchObject({ count: 0, available_from: null });
  });

  it('counts the contacts of the group messaged in the last 24 h, and says whether the frequency cap is on', async () => {
    await setFrequencyCap(t.ctx.db, userId, { cap: null });
    // Replied: persons 1, 9 and 11, all sent 3 h ago.
    expect((await count(s.campaignId, 'group=replied')).json()).toMatchObject({ count: 3, messaged_last_24h: 3, frequency_cap: null });
    // Unread after 24 h: persons 3 and 10, sent 30 and 40 h ago.
    expect((await count(s.campaignId, 'group=unread&hours=24')).json()).toMatchObject({ count: 2, messaged_last_24h: 0 });
    await setFrequencyCap(t.ctx.db, userId, { cap: { max_messages: 2, days: 7 } });
    try {
      expect((await count(s.campaignId, 'group=replied')).json()).toMatchObject({ messaged_last_24h: 3, frequency_cap: { max_messages: 2, days: 7 } });
    } finally {
      await setFrequencyCap(t.ctx.db, userId, { cap: null });
    }
  });

  it('another tenant learns nothing from the count', async () => {
    const other = await t.signUp();
    const res = await t.app.inject({ method: 'GET', url: `/api/campaigns/${s.campaignId}/follow-up/count?group=unread&hours=48`, headers: other.headers });
    expect(res.statusCode).toBe(404);
    expect(res.json()).not.toHaveProperty('available_from');
  });
});

describe('follow-up campaigns', () => {
  for (const g of GROUPS) {
    it(`${g.name}: a draft over exactly the group, pre-flight and freeze on that list`, async () => {
      const counted = await count(s.campaignId, g.query);
      expect(counted.statusCode, counted.body).toBe(200);
      expect(counted.json().count).toBe(g.people.length);

      const res = await create(s.campaignId, g.payload);
      expect(res.statusCode, res.body).toBe(201);
      const draft = res.json() as Campaign;
      expect(draft).toMatchObject({
        status: 'draft',
        audience_kind: 'contact_list',
        total_recipients: g.people.length,
        kommo_account_id: s.world.kommoAccountId,
        whatsapp_account_id: s.world.whatsappAccountId,
        template_id: s.world.templateId,
        follow_up_of: { campaign_id: s.campaignId, campaign_name: 'Promo de noviembre', group: g.payload.group },
      });
      expect(draft.name).toContain('Promo de noviembre');

      const listed = await rowsOf<{ contact_id: number }>(t.ctx.db, sql`select contact_id from campaign_audience_contacts where campaign_id = ${draft.id} and user_id = ${userId} order by contact_id`);
      expect(listed.map((r) => Number(r.contact_id))).toEqual(g.people.map(s.contactId).sort((a, b) => a - b));

      const pf = await t.app.inject({ method: 'GET', url: `/api/campaigns/${draft.id}/preflight`, headers });
      expect(pf.statusCode, pf.body).toBe(200);
      const p = pf.json() as Preflight;
      const excludedPeople = Object.values(g.excluded).flat();
      expect(p.matched).toBe(g.people.length);
      expect(p.attempted).toBe(g.people.length - excludedPeople.length);
      expect(byReason(p)).toEqual(Object.fromEntries(Object.entries(g.excluded).map(([r, list]) => [r, list.length])));

      const started = await t.app.inject({ method: 'POST', url: `/api/campaigns/${draft.id}/start`, headers });
      expect(started.statusCode, started.body).toBe(200);
      const frozen = await rowsOf<{ contact_id: number; status: string; error_message: string | null }>(
        t.ctx.db,
        sql`select contact_id, status, error_message from campaign_recipients where campaign_id = ${draft.id} order by contact_id`,
      );
      expect(frozen.map((r) => Number(r.contact_id))).toEqual(g.people.map(s.contactId).sort((a, b) => a - b));
      const pending = frozen.filter((r) => r.status === 'pending').map((r) => Number(r.contact_id));
      expect(pending.sort((a, b) => a - b)).toEqual(g.people.filter((i) => !excludedPeople.includes(i)).map(s.contactId).sort((a, b) => a - b));
      for (const r of frozen.filter((x) => x.status === 'skipped')) expect(r.error_message).toBe(REASON_MESSAGE.blacklisted);
    });
  }

  it('the frequency cap still applies to the frozen list', async () => {
    const res = await create(s.campaignId, { group: 'replied', name: 'Con tope' });
    expect(res.statusCode, res.body).toBe(201);
    await setFrequencyCap(t.ctx.db, userId, { cap: { max_messages: 1, days: 7 } });
    try {
      const p = (await t.app.inject({ method: 'GET', url: `/api/campaigns/${res.json().id}/preflight`, headers })).json() as Preflight;
      // All three got the source's marketing message 3 hours ago.
      expect(p).toMatchObject({ matched: 3, attempted: 0 });
      expect(byReason(p)).toEqual({ frequency_cap: 3 });
    } finally {
      await setFrequencyCap(t.ctx.db, userId, { cap: null });
    }
  });

  it('the list is fixed: filters cannot replace it, and the detail says where it came from', async () => {
    const res = await create(s.campaignId, { group: 'failed_retryable', name: 'Reintento manual' });
    const id = res.json().id as number;
    const put = await t.app.inject({
      method: 'PUT',
      url: `/api/campaigns/${id}`,
      headers,
      payload: { filters: { searchQuery: 'Cliente', tags: [], tagOperator: 'OR', customFieldFilters: {} } },
    });
    expect(put.statusCode).toBe(409);
    expect(put.json().error).toBe(FIXED_LIST_AUDIENCE);
    const renamed = await t.app.inject({ method: 'PUT', url: `/api/campaigns/${id}`, headers, payload: { name: 'Reintento de fallidos' } });
    expect(renamed.statusCode, renamed.body).toBe(200);
    const detail = (await t.app.inject({ method: 'GET', url: `/api/campaigns/${id}`, headers })).json() as Campaign;
    expect(detail).toMatchObject({
      name: 'Reintento de fallidos',
      audience_kind: 'contact_list',
      total_recipients: 2,
      follow_up_of: { campaign_name: 'Promo de noviembre', group: 'failed_retryable', group_label: 'Fallaron (reintentables)' },
    });
    const unread = await create(s.campaignId, { group: 'unread' });
    expect(unread.json().follow_up_of).toMatchObject({ hours: 24, group_label: 'No leyeron en 24 h' });
  });

  it('refuses bad input with a Spanish 400 and writes nothing', async () => {
    const before = [await campaignCount(), await listCount()];
    const cases: Array<[unknown, RegExp]> = [
      [{ group: 'todos' }, /Elige a quiénes/],
      [{}, /Elige a quiénes/],
      [{ group: 'tapped' }, /Indica el texto del botón/],
      [{ group: 'tapped', button: '   ' }, /Indica el texto del botón/],
      [{ group: 'unread', hours: 0 }, /entre 1 y 720/],
      [{ group: 'unread', hours: 'mucho' }, /entre 1 y 720/],
      [{ group: 'replied', name: 'x'.repeat(201) }, /200 caracteres/],
      [{ group: 'replied', extra: true }, /.+/],
      [{ group: 'tapped', button: 'Nadie tocó esto' }, new RegExp(EMPTY_GROUP)],
    ];
    for (const [payload, message] of cases) {
      const res = await create(s.campaignId, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().error, JSON.stringify(payload)).toMatch(message);
    }
    const badCount = await count(s.campaignId, 'group=tapped');
    expect(badCount.statusCode).toBe(400);
    expect(badCount.json().error).toMatch(/Indica el texto del botón/);
    const otherTemplate = await create(s.campaignId, { group: 'replied', template_id: 999_999 });
    expect(otherTemplate.statusCode).toBe(404);
    expect([await campaignCount(), await listCount()]).toEqual(before);
  });

  it('refuses a campaign not started yet (409) and another tenant’s campaign (404)', async () => {
    const draft = await t.app.inject({
      method: 'POST',
      url: '/api/campaigns',
      headers,
      payload: { name: 'Sin enviar', kommo_account_id: s.world.kommoAccountId, whatsapp_account_id: s.world.whatsappAccountId, template_id: s.world.templateId },
    });
    const res = await create(draft.json().id, { group: 'replied' });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toBe(NOT_SENT_YET);

    const other = await t.signUp();
    const before = await campaignCount();
    const foreign = await create(s.campaignId, { group: 'replied' }, other.headers);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().error).toBe('Campaña no encontrada');
    const foreignCount = await t.app.inject({ method: 'GET', url: `/api/campaigns/${s.campaignId}/follow-up/count?group=replied`, headers: other.headers });
    expect(foreignCount.statusCode).toBe(404);
    expect(await campaignCount()).toBe(before);
  });

  it('freezes a list of thousands in seconds, on a table the database has no statistics for yet', async () => {
    // Without statistics the planner joined the audience to its verdicts in a nested loop:
    // 4,000 contacts took about 20 s on the embedded database (20,000: over 8 minutes).
    const w = await seedCampaignWorld(t.ctx.db, t.ctx.secrets, userId, { number: { phoneNumberId: '1402', wabaId: '2402', token: 'tok' }, subdomain: 'miles' });
    await insertContacts(t.ctx.db, userId, w.kommoAccountId, 4_000);
    const source = await t.app.inject({
      method: 'POST',
      url: '/api/campaigns',
      headers,
      payload: { name: 'Miles', kommo_account_id: w.kommoAccountId, whatsapp_account_id: w.whatsappAccountId, template_id: w.templateId },
    });
    const sourceId = source.json().id as number;
    await t.ctx.db.execute(sql`insert into campaign_recipients (campaign_id, user_id, contact_id, phone, phone_key, status, sent_at, read_at)
      select ${sourceId}, ${userId}, id, phone, phone_key, 'read', now() - interval '3 hours', now() from contacts where account_id = ${w.kommoAccountId} order by id`);
    await t.ctx.db.execute(sql`update campaigns set status = 'completed', audience_frozen_at = now(), started_at = now() where id = ${sourceId}`);
    const draft = (await create(sourceId, { group: 'read_not_replied' })).json() as Campaign;
    expect(draft.total_recipients).toBe(4_000);
    const started = Date.now();
    const res = await t.app.inject({ method: 'POST', url: `/api/campaigns/${draft.id}/start`, headers });
    expect(res.statusCode, res.body).toBe(200);
    expect(Date.now() - started).toBeLessThan(8_000);
    const [frozen] = await rowsOf<{ n: number; ordered: boolean }>(
      t.ctx.db,
      sql`select count(*)::int as n, bool_and(prev is null or prev < contact_id) as ordered
          from (select contact_id, lag(contact_id) over (order by id) as prev from campaign_recipients where campaign_id = ${draft.id}) x`,
    );
    // Every listed contact, with recipient ids in the contacts' order (the sender claims by id).
    expect(frozen).toMatchObject({ n: 4_000, ordered: true });
  });
});
