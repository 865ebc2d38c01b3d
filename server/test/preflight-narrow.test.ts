import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContactFilter } from '@masivo/contract/contact-filter';
import { rowsOf } from '../src/db/sql';
import { classifiedAudienceCtes, countAudience, type AudienceRules } from '../src/services/campaigns/audience-classifier';
import { setFrequencyCap } from '../src/services/campaigns/frequency-cap';
import { createTestApp, type TestApp } from './helpers/app';
import { insertContact, seedCampaignWorld, type CampaignWorld } from './helpers/campaign-fixtures';

/**
 * The pre-flight counts from narrow tables (contact_facets with phone keys; contact_people and its
 * prefixes for "every contact", 0026) while the freeze classifies the contacts themselves. After
 * every kind of write, both must give the same figures, reason by reason, and the narrow tables
 * must equal what the contacts say.
 */
let t: TestApp;
let userId: number;
let w: CampaignWorld;
let kommoId = 1;

const FILTERS: Record<string, ContactFilter> = {
  all: { searchQuery: '', tags: [], tagOperator: 'OR', excludedTags: [], customFieldFilters: {} },
  vip: { searchQuery: '', tags: ['vip'], tagOperator: 'OR', excludedTags: [], customFieldFilters: {} },
  search: { searchQuery: 'persona', tags: [], tagOperator: 'OR', excludedTags: [], customFieldFilters: {} },
  searchAndTag: { searchQuery: 'persona', tags: ['general'], tagOperator: 'OR', excludedTags: [], customFieldFilters: {} },
  // Excluded tags alone are every contact minus the holders: people with contacts on both sides stay.
  withoutVip: { searchQuery: '', tags: [], tagOperator: 'OR', excludedTags: ['vip'], customFieldFilters: {} },
  withoutGeneral: { searchQuery: '', tags: [], tagOperator: 'OR', excludedTags: ['general'], customFieldFilters: {} },
  withoutTwo: { searchQuery: '', tags: [], tagOperator: 'OR', excludedTags: ['vip', 'nadie'], customFieldFilters: {} },
  searchWithoutVip: { searchQuery: 'persona', tags: [], tagOperator: 'OR', excludedTags: ['vip'], customFieldFilters: {} },
  vipWithoutGeneral: { searchQuery: '', tags: ['vip'], tagOperator: 'OR', excludedTags: ['general'], customFieldFilters: {} },
  noPlan: { searchQuery: '', tags: [], tagOperator: 'OR', excludedTags: [], customFieldFilters: { Plan: { mode: 'notExists' } } },
};

const add = (phone: string | null, tags: string[], phoneRaw?: string | null) =>
  insertContact(t.ctx.db, userId, w.kommoAccountId, {
    kommoId: kommoId++,
    name: `Persona ${kommoId}`,
    phone,
    phoneRaw: phoneRaw === undefined ? phone : phoneRaw,
    tags,
  });

beforeAll(async () => {
  t = await createTestApp();
  ({ userId } = await t.signUp());
  w = await seedCampaignWorld(t.ctx.db, t.ctx.secrets, userId, { number: { phoneNumberId: '1311', wabaId: '2311', token: 'tok' } });
  // 60 people in AR, MX, CO, US, Canada; every 7th twice (once without the mobile 9), some without a phone.
  for (let i = 0; i < 60; i++) {
    const tags = i % 3 === 0 ? ['vip'] : ['general'];
    const n = String(i).padStart(4, '0');
    const phone = [`+54911${n}0000`, `+52155${n}0000`, `+57300${n}000`, `+1202555${n}`, `+1416555${n}`][i % 5];
    await add(phone, tags);
    if (i % 7 === 0) await add(phone.startsWith('+549') ? `+54${phone.slice(4)}` : phone, ['general']);
    if (i % 11 === 0) await add(null, tags, 'sin número');
  }
  // A username user known only by BSUID, and another whose BSUID is blocked.
  await add(null, ['vip'], 'AR.13491208655302741918');
  await add(null, ['general'], 'AR.99991208655302741918');
  // Blacklist by phone key and by BSUID; an opt-out; a BSUID learned for a phone and blocked.
  await t.ctx.db.execute(sql`insert into blacklist (user_id, account_id, phone, phone_key, reason)
    values (${userId}, ${w.kommoAccountId}, '+5491100050000', '541100050000', 'baja')`);
  await t.ctx.db.execute(sql`insert into blacklist (user_id, account_id, phone, phone_key, bsuid, reason)
    values (${userId}, ${w.kommoAccountId}, 'AR.99991208655302741918', 'AR.99991208655302741918', 'AR.99991208655302741918', 'baja')`);
  await t.ctx.db.execute(sql`insert into opt_outs (user_id, whatsapp_account_id, phone_key, phone, word)
    values (${userId}, ${w.whatsappAccountId}, '12025550008', '+12025550008', 'STOP')`);
  await t.ctx.db.execute(sql`insert into contact_bsuids (user_id, phone_key, bsuid) values (${userId}, '573000012000', 'CO.55501208655302741918')`);
  await t.ctx.db.execute(sql`insert into blacklist (user_id, account_id, phone, phone_key, bsuid, reason)
    values (${userId}, ${w.kommoAccountId}, 'CO.55501208655302741918', 'CO.55501208655302741918', 'CO.55501208655302741918', 'baja')`);
  // A marketing send yesterday to two people: capped at 1 in 7 days.
  const [{ id: past }] = await rowsOf<{ id: number }>(
    t.ctx.db,
    sql`insert into campaigns (user_id, name, kommo_account_id, whatsapp_account_id, template_id, filters, status)
        values (${userId}, 'Anterior', ${w.kommoAccountId}, ${w.whatsappAccountId}, ${w.templateId}, '{}'::jsonb, 'completed') returning id`,
  );
  for (const key of ['521550002000', '14165550004']) {
    await t.ctx.db.execute(sql`insert into campaign_recipients (campaign_id, user_id, phone, phone_key, status, sent_at)
      values (${past}, ${userId}, ${'+' + key}, ${key}, 'sent', now() - interval '1 day')`);
  }
  await setFrequencyCap(t.ctx.db, userId, { cap: { max_messages: 1, days: 7 } });
});
afterAll(() => t.close());

const rules = (filters: ContactFilter, over: Partial<AudienceRules> = {}): AudienceRules => ({
  userId,
  kommoAccountId: w.kommoAccountId,
  filters,
  marketing: true,
  cap: { maxMessages: 1, days: 7 },
  templateUnfit: false,
  ...over,
});

/** What the freeze would insert: the classifier over the contacts themselves, counted by reason. */
async function fromContacts(r: AudienceRules) {
  const rows = await rowsOf<{ reason: string | null; n: number }>(
    t.ctx.db,
    sql`with ${classifiedAudienceCtes(r)} select reason, count(*)::int as n from classified group by reason`,
  );
  const by = Object.fromEntries(rows.map((row) => [row.reason ?? 'attempted', Number(row.n)]));
  return {
    matched: rows.reduce((s, row) => s + Number(row.n), 0),
    attempted: by.attempted ?? 0,
    excluded: {
      invalid_phone: by.invalid_phone ?? 0,
      duplicate: by.duplicate ?? 0,
      blacklisted: by.blacklisted ?? 0,
      frequency_cap: by.frequency_cap ?? 0,
      us_marketing: by.us_marketing ?? 0,
      template_unfit: by.template_unfit ?? 0,
    },
  };
}

async function expectSameFigures(label: string) {
  for (const [name, filter] of Object.entries(FILTERS)) {
    for (const over of [{}, { marketing: false, cap: null }, { templateUnfit: true }] as Array<Partial<AudienceRules>>) {
      const r = rules(filter, over);
      const counted = await countAudience(t.ctx.db, r);
      const expected = await fromContacts(r);
      const what = `${label} / ${name} / ${JSON.stringify(over)}`;
      expect({ matched: counted.matched, attempted: counted.attempted, excluded: counted.excluded }, what).toEqual(expected);
      expect(counted.prefixes.reduce((s, p) => s + p.count, 0), what).toBe(counted.attempted);
    }
  }
  // The narrow tables equal what the contacts say.
  const people = await rowsOf<{ d: number }>(
    t.ctx.db,
    sql`select count(*)::int as d from (
          (select phone_key, n from contact_people where account_id = ${w.kommoAccountId}
            except select phone_key, count(*)::int from contacts where account_id = ${w.kommoAccountId} and phone_key is not null group by 1)
          union all
          (select phone_key, count(*)::int from contacts where account_id = ${w.kommoAccountId} and phone_key is not null group by 1
            except select phone_key, n from contact_people where account_id = ${w.kommoAccountId})) x`,
  );
  expect(Number(people[0].d), `${label}: contact_people`).toBe(0);
  const prefixes = await rowsOf<{ d: number }>(
    t.ctx.db,
    sql`select count(*)::int as d from (
          (select prefix, people, contacts from contact_people_prefixes where account_id = ${w.kommoAccountId} and contacts > 0
            except select left(phone_key, 4), count(distinct phone_key)::int, count(*)::int from contacts
              where account_id = ${w.kommoAccountId} and phone_key is not null group by 1)
          union all
          (select left(phone_key, 4), count(distinct phone_key)::int, count(*)::int from contacts
              where account_id = ${w.kommoAccountId} and phone_key is not null group by 1
            except select prefix, people, contacts from contact_people_prefixes where account_id = ${w.kommoAccountId} and contacts > 0)) x`,
  );
  expect(Number(prefixes[0].d), `${label}: contact_people_prefixes`).toBe(0);
  const facets = await rowsOf<{ d: number }>(
    t.ctx.db,
    sql`select count(*)::int as d from contacts c join contact_facets f on f.contact_id = c.id
        where c.account_id = ${w.kommoAccountId} and f.phone_key is distinct from c.phone_key`,
  );
  expect(Number(facets[0].d), `${label}: contact_facets.phone_key`).toBe(0);
}

describe('the pre-flight from narrow tables', () => {
  it('gives the freeze’s figures for every filter, template category and reason', async () => {
    // Every reason occurs in this world (so the comparison below can catch a wrong one).
    const all = await countAudience(t.ctx.db, rules(FILTERS.all));
    for (const [reason, n] of Object.entries(all.excluded)) if (reason !== 'template_unfit') expect(n, reason).toBeGreaterThan(0);
    expect(all.excluded.blacklisted).toBe(4); // by phone key, by BSUID, the opt-out, and the learned BSUID
    await expectSameFigures('as loaded');
  });

  it('follows phone changes, deletions, new duplicates and a full sync’s identical rewrite', async () => {
    const db = t.ctx.db;
    // A person gets another's phone (a new duplicate); another loses the phone; one moves country.
    await db.execute(sql`update contacts set phone = '+5491100050000', phone_raw = '+5491100050000'
      where account_id = ${w.kommoAccountId} and phone = '+5491100150000'`);
    await db.execute(sql`update contacts set phone = null, phone_raw = 'llamar luego'
      where account_id = ${w.kommoAccountId} and phone = '+5215500160000'`);
    await db.execute(sql`update contacts set phone = '+12025559999', phone_raw = '+12025559999'
      where account_id = ${w.kommoAccountId} and phone = '+573000017000'`);
    // Deletions, one of them the last contact of its person, one a duplicate.
    await db.execute(sql`delete from contacts where account_id = ${w.kommoAccountId} and phone in ('+1416555' || '0009', '+5491100000000')`);
    // A full sync rewrites every row with the same values, then tags change.
    await db.execute(sql`update contacts set name = name, phone = phone where account_id = ${w.kommoAccountId}`);
    await db.execute(sql`update contacts set tags = array['vip'] where account_id = ${w.kommoAccountId} and phone like '+57%'`);
    // A new contact for a capped person, and a new person.
    await add('+5215500020000', ['vip']);
    await add('+5491177770000', ['general']);
    await expectSameFigures('after writes');
  });

  it('leaves no rows behind when the account goes', async () => {
    const other = await t.signUp();
    const world = await seedCampaignWorld(t.ctx.db, t.ctx.secrets, other.userId, {
      number: { phoneNumberId: '1312', wabaId: '2312', token: 'tok2' },
      contacts: 5,
    });
    const before = await rowsOf<{ n: number }>(t.ctx.db, sql`select count(*)::int as n from contact_people where account_id = ${world.kommoAccountId}`);
    expect(Number(before[0].n)).toBe(5);
    await t.ctx.db.execute(sql`delete from kommo_accounts where id = ${world.kommoAccountId}`);
    const after = await rowsOf<{ n: number }>(
      t.ctx.db,
      sql`select (select count(*) from contact_people where account_id = ${world.kommoAccountId})
            + (select count(*) from contact_people_prefixes where account_id = ${world.kommoAccountId}) as n`,
    );
    expect(Number(after[0].n)).toBe(0);
  });
});
