import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Campaign } from '@masivo/contract/campaigns';
import { filterToSearchParams, type ContactFilterInput } from '@masivo/contract/contact-filter';
import type { Preflight } from '@masivo/contract/preflight';
import { rowsOf } from '../src/db/sql';
import { createTestApp, type TestApp } from './helpers/app';
import { seedCampaignWorld, type CampaignWorld } from './helpers/campaign-fixtures';

/**
 * "Sin las etiquetas": contacts holding an excluded tag are left out of every figure and every
 * set the filter selects — counts, the list, the export, the pre-flight, the freeze of a started
 * campaign and the follow-ups made from it.
 * 30 contacts (kommo ids 1-30): `vip` on 10, 20, 30, `general` on the rest; `no_contactar` on 3, 7, 10, 20.
 */
const EXCLUDE = 'no_contactar';
const TAGGED = [3, 7, 10, 20];
const ALL = Array.from({ length: 30 }, (_, i) => i + 1);
const without = (ids: number[], out: number[]) => ids.filter((i) => !out.includes(i));

let t: TestApp;
let userId: number;
let headers: { authorization: string };
let w: CampaignWorld;

const get = (url: string) => t.app.inject({ method: 'GET', url, headers });
const post = (url: string, payload: unknown) => t.app.inject({ method: 'POST', url, headers, payload: payload as never });
const tag = (kommoIds: number[]) =>
  t.ctx.db.execute(sql`update contacts set tags = array_append(tags, ${EXCLUDE}::text)
    where account_id = ${w.kommoAccountId} and kommo_id = any(${`{${kommoIds.join(',')}}`}::bigint[])`);
const kommoIdsOf = async (contactIds: number[]) => {
  if (contactIds.length === 0) return [];
  const rows = await rowsOf<{ kommo_id: number }>(
    t.ctx.db,
    sql`select kommo_id from contacts where id = any(${`{${contactIds.join(',')}}`}::bigint[]) order by kommo_id`,
  );
  return rows.map((r) => Number(r.kommo_id));
};

/** The exact screen count (an estimate, on PostgreSQL, is asked again until the exact one is back). */
async function screenCount(url: string): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const res = await get(url);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as { count: number; approximate?: boolean };
    if (!body.approximate) return body.count;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no exact count from ${url}`);
}

/** The kommo ids the contacts list returns, and its total. */
async function listed(f: ContactFilterInput) {
  const res = await get(`/api/contacts/${w.kommoAccountId}/filtered?${filterToSearchParams(f, { limit: 100 })}`);
  expect(res.statusCode, res.body).toBe(200);
  const page = res.json() as { total: number; contacts: Array<{ kommo_id: number; tags_array: string[] }> };
  return { total: page.total, ids: page.contacts.map((c) => c.kommo_id).sort((a, b) => a - b) };
}

const newCampaign = (name: string, filters: ContactFilterInput) => ({
  name,
  kommo_account_id: w.kommoAccountId,
  whatsapp_account_id: w.whatsappAccountId,
  template_id: w.templateId,
  filters,
});

beforeAll(async () => {
  t = await createTestApp();
  ({ userId, headers } = await t.signUp());
  w = await seedCampaignWorld(t.ctx.db, t.ctx.secrets, userId, { number: { phoneNumberId: '1701', wabaId: '2701', token: 'tok' }, contacts: 30 });
  await tag(TAGGED);
});
afterAll(() => t.close());

describe('excluded tags ("sin las etiquetas")', () => {
  const CASES: Array<[string, ContactFilterInput, number[]]> = [
    ['only the exclusion', { excludedTags: [EXCLUDE] }, without(ALL, TAGGED)],
    ['an included tag and the exclusion', { tags: ['vip'], excludedTags: [EXCLUDE] }, [30]],
    ['all of two tags and the exclusion', { tags: ['vip', EXCLUDE], tagOperator: 'AND', excludedTags: ['general'] }, [10, 20]],
    ['two excluded tags', { excludedTags: [EXCLUDE, 'vip'] }, without(ALL, [...TAGGED, 30])],
    ['a search and the exclusion', { searchQuery: 'Cliente 1', excludedTags: [EXCLUDE] }, [1, 11, 12, 13, 14, 15, 16, 17, 18, 19]],
    ['a field and the exclusion', { excludedTags: [EXCLUDE], customFieldFilters: { Ciudad: { mode: 'specific', values: ['Córdoba'] } } }, [6, 9, 12, 15, 18, 21, 24, 27, 30]],
  ];

  for (const [name, f, expected] of CASES) {
    it(`${name}: the counts and the list leave out the contacts holding it`, async () => {
      const query = filterToSearchParams(f);
      expect(await screenCount(`/api/contacts/${w.kommoAccountId}/count?${query}`)).toBe(expected.length);
      expect(await screenCount(`/api/contacts/recipient-count?${filterToSearchParams(f, { account_id: w.kommoAccountId })}`)).toBe(expected.length);
      const list = await listed(f);
      expect(list.ids).toEqual(expected);
      expect(list.total).toBe(expected.length);
    });
  }

  it('the export leaves them out, with the filter flat or nested', async () => {
    const csvIds = (body: string) =>
      body
        .replace(/^\uFEFF/, '')
        .split(/\r?\n/)
        .slice(1)
        .filter(Boolean)
        .map((line) => Number(line.split(',')[0]))
        .sort((a, b) => a - b);
    const flat = await post(`/api/contacts/${w.kommoAccountId}/export`, { excludedTags: [EXCLUDE] });
    expect(flat.statusCode, flat.body).toBe(200);
    expect(csvIds(flat.body)).toEqual(without(ALL, TAGGED));
    expect(flat.body).not.toContain(EXCLUDE);
    const nested = await post(`/api/contacts/${w.kommoAccountId}/export`, { filters: { tags: ['vip'], excludedTags: [EXCLUDE] }, format: 'csv' });
    expect(nested.statusCode, nested.body).toBe(200);
    expect(csvIds(nested.body)).toEqual([30]);
  });

  it('the pre-flight, the freeze and the follow-ups leave them out', async () => {
    const filters = { excludedTags: [EXCLUDE] };
    const pf = await post('/api/campaigns/preflight', newCampaign('', filters));
    expect(pf.statusCode, pf.body).toBe(200);
    expect(pf.json()).toMatchObject({ matched: 26, attempted: 26 });

    const created = await post('/api/campaigns', newCampaign('Marketing sin no_contactar', filters));
    expect(created.statusCode, created.body).toBe(201);
    const campaign = created.json() as Campaign;
    expect(campaign.total_recipients).toBe(26);
    expect(campaign.filters.excludedTags).toEqual([EXCLUDE]);
    const draftPf = (await get(`/api/campaigns/${campaign.id}/preflight`)).json() as Preflight;
    expect(draftPf).toMatchObject({ matched: 26, attempted: 26 });

    // A contact tagged between the pre-flight and the start is left out by the freeze too.
    await tag([25]);
    const started = await post(`/api/campaigns/${campaign.id}/start`, {});
    expect(started.statusCode, started.body).toBe(200);
    const frozen = await rowsOf<{ contact_id: number }>(t.ctx.db, sql`select contact_id from campaign_recipients where campaign_id = ${campaign.id}`);
    expect(await kommoIdsOf(frozen.map((r) => Number(r.contact_id)))).toEqual(without(ALL, [...TAGGED, 25]));
    expect((await get(`/api/campaigns/${campaign.id}`)).json()).toMatchObject({ total_recipients: 25, pending_count: 25 });

    // Sent more than a day ago, nobody read it; since then contact 5 was tagged.
    await t.ctx.db.execute(sql`update campaign_recipients set status = 'delivered', sent_at = now() - interval '30 hours',
      delivered_at = now() - interval '30 hours', wamid = 'wamid.' || id where campaign_id = ${campaign.id}`);
    await t.ctx.db.execute(sql`update campaigns set status = 'completed', completed_at = now() where id = ${campaign.id}`);
    await tag([5]);
    const count = await get(`/api/campaigns/${campaign.id}/follow-up/count?group=unread&hours=24`);
    expect(count.statusCode, count.body).toBe(200);
    expect(count.json().count).toBe(24);
    const follow = await post(`/api/campaigns/${campaign.id}/follow-up`, { group: 'unread', hours: 24 });
    expect(follow.statusCode, follow.body).toBe(201);
    const followUp = follow.json() as Campaign;
    expect(followUp).toMatchObject({ total_recipients: 24, filters: { excludedTags: [EXCLUDE] } });
    const list = await rowsOf<{ contact_id: number }>(t.ctx.db, sql`select contact_id from campaign_audience_contacts where campaign_id = ${followUp.id}`);
    expect(await kommoIdsOf(list.map((r) => Number(r.contact_id)))).toEqual(without(ALL, [...TAGGED, 25, 5]));

    // Tagged after the follow-up was made: its pre-flight and its freeze leave contact 6 out.
    await tag([6]);
    const followPf = (await get(`/api/campaigns/${followUp.id}/preflight`)).json() as Preflight;
    expect(followPf).toMatchObject({ matched: 23, attempted: 23 });
    const followStart = await post(`/api/campaigns/${followUp.id}/start`, {});
    expect(followStart.statusCode, followStart.body).toBe(200);
    const followFrozen = await rowsOf<{ contact_id: number }>(t.ctx.db, sql`select contact_id from campaign_recipients where campaign_id = ${followUp.id}`);
    expect(await kommoIdsOf(followFrozen.map((r) => Number(r.contact_id)))).toEqual(without(ALL, [...TAGGED, 25, 5, 6]));
  });

  it('refuses a malformed exclusion with a Spanish 400 and writes nothing', async () => {
    const campaigns = async () => Number((await rowsOf<{ n: number }>(t.ctx.db, sql`select count(*)::int as n from campaigns`))[0]!.n);
    const before = await campaigns();
    const many = Array.from({ length: 2_001 }, (_, i) => `t${i}`);
    const cases: Array<[unknown, RegExp]> = [
      ['no_contactar', /Las etiquetas excluidas deben ser una lista/],
      [{ tag: 'no_contactar' }, /Las etiquetas excluidas deben ser una lista/],
      [[1], /Cada etiqueta debe ser un texto/],
      [['x'.repeat(201)], /Etiqueta demasiado larga/],
      [many, /Demasiados valores en el filtro/],
    ];
    for (const [excludedTags, message] of cases) {
      const what = JSON.stringify(excludedTags).slice(0, 40);
      const q = `excludedTags=${encodeURIComponent(JSON.stringify(excludedTags))}`;
      for (const url of [`/api/contacts/${w.kommoAccountId}/count?${q}`, `/api/contacts/${w.kommoAccountId}/filtered?${q}`, `/api/contacts/recipient-count?account_id=${w.kommoAccountId}&${q}`]) {
        const res = await get(url);
        expect(res.statusCode, `${url.slice(0, 60)} ${what}`).toBe(400);
        expect(res.json().error, what).toMatch(message);
      }
      const exported = await post(`/api/contacts/${w.kommoAccountId}/export`, { excludedTags });
      expect(exported.statusCode, what).toBe(400);
      expect(exported.json().error, what).toMatch(message);
      const created = await post('/api/campaigns', newCampaign('Mal filtro', { excludedTags } as never));
      expect(created.statusCode, what).toBe(400);
      expect(created.json().error, what).toMatch(message);
    }
    // Included and excluded tags share the filter's one budget of values.
    const half = Array.from({ length: 1_001 }, (_, i) => `t${i}`);
    const shared = await get(`/api/contacts/${w.kommoAccountId}/count?${filterToSearchParams({ tags: half, excludedTags: half })}`);
    expect(shared.statusCode).toBe(400);
    expect(shared.json().error).toMatch(/Demasiados valores en el filtro/);
    expect((await get(`/api/contacts/${w.kommoAccountId}/count?excludedTags=%5B`)).json().error).toBe('excludedTags: JSON inválido');
    expect(await campaigns()).toBe(before);
  });
});
