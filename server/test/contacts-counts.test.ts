import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { countScenarios, tagsForSeed } from '@masivo/simulators/data';
import type { ContactFilterInput } from '@masivo/contract/contact-filter';
import { rowsOf } from '../src/db/sql';
import { createCountCache } from '../src/services/contacts/count-cache';
import { contactFilterSql, countContacts } from '../src/services/contacts/filter-engine';
import { createKommoTestEnv, waitForSync, type KommoTestEnv } from './helpers/kommo';

/**
 * Counts at a million contacts: counts are cached per account, filter and data version. For every bench scenario the
 * count (screen total, /count, recipient box) must equal the rows the filter returns, also right
 * after an incremental sync changed the data: a stale cached figure fails here.
 */
const SEED = 7;
let env: KommoTestEnv;
let headers: { authorization: string };
let accountId: number;

const scenarios = (): Array<[string, ContactFilterInput]> => countScenarios(SEED);

function query(f: ContactFilterInput): URLSearchParams {
  const q = new URLSearchParams();
  if (f.searchQuery !== undefined) q.set('searchQuery', f.searchQuery);
  if (f.tags !== undefined) q.set('tags', JSON.stringify(f.tags));
  if (f.tagOperator !== undefined) q.set('tagOperator', f.tagOperator);
  if (f.excludedTags !== undefined) q.set('excludedTags', JSON.stringify(f.excludedTags));
  if (f.customFieldFilters !== undefined) q.set('customFieldFilters', JSON.stringify(f.customFieldFilters));
  return q;
}

const get = async (url: string) => {
  const res = await env.t.app.inject({ method: 'GET', url, headers });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
};

/** Every figure the product shows for a filter, and the ids the filter returns page by page. */
async function figures(f: ContactFilterInput) {
  const q = query(f);
  const count = (await get(`/api/contacts/${accountId}/count?${q}`)).count as number;
  const recipients = (await get(`/api/contacts/recipient-count?account_id=${accountId}&${q}`)).count as number;
  const ids: number[] = [];
  let total = -1;
  for (let offset = 0; ; offset += 100) {
    const page = await get(`/api/contacts/${accountId}/filtered?${q}&limit=100&offset=${offset}`);
    total = page.total;
    ids.push(...page.contacts.map((c: { id: number }) => c.id));
    if (page.contacts.length < 100) break;
  }
  return { count, recipients, total, rows: ids.length };
}

async function sync() {
  const res = await env.t.app.inject({ method: 'POST', url: '/api/kommo/sync-contacts', headers, payload: { account_id: accountId } });
  expect(res.statusCode).toBe(202);
  return waitForSync(env.t, headers, accountId);
}

beforeAll(async () => {
  env = await createKommoTestEnv();
  env.sim.addAccount({ subdomain: 'conteos', token: 'tok', contacts: 600, seed: SEED });
  ({ headers } = await env.t.signUp());
  const phoneFieldId = env.sim.fields('conteos').phoneFieldId;
  const res = await env.t.app.inject({
    method: 'POST',
    url: '/api/kommo/accounts',
    headers,
    payload: { subdomain: 'conteos', access_token: 'tok', phone_field_id: phoneFieldId },
  });
  accountId = res.json().id;
  env.startRunner();
  expect((await sync()).sync_total_contacts).toBe(600);
}, 60_000);
afterAll(() => env.close());

describe('counts equal the rows the filter returns', () => {
  it('for every bench scenario, before and after an incremental sync changes the data', async () => {
    const before = new Map<string, Awaited<ReturnType<typeof figures>>>();
    for (const [name, f] of scenarios()) {
      const got = await figures(f);
      expect({ name, ...got }).toEqual({ name, count: got.rows, recipients: got.rows, total: got.rows, rows: got.rows });
      before.set(name, got);
    }

    // Changes that move every scenario: new matching contacts, a removed field, new tags.
    const [t1, t2, t3] = tagsForSeed(SEED);
    env.sim.addContacts('conteos', 4);
    for (const id of [1, 2, 3, 4, 5]) {
      env.sim.updateContact('conteos', id, {
        name: `Mariana Marquez ${id}`,
        email: `mariana${id}@hotmail.com`,
        tags: [t1, t2, t3],
        custom: { Plan: 'Pro', Ciudad: 'San Martín', Origen: null },
      });
    }
    const status = await sync();
    expect(status).toMatchObject({ sync_status: 'synced', sync_total_contacts: 604 });

    let changed = 0;
    for (const [name, f] of scenarios()) {
      const got = await figures(f);
      expect({ name, ...got }).toEqual({ name, count: got.rows, recipients: got.rows, total: got.rows, rows: got.rows });
      if (got.rows !== before.get(name)!.rows) changed++;
    }
    // The data change must be visible in most scenarios, or this test could not catch a stale cache.
    expect(changed).toBeGreaterThanOrEqual(8);
  }, 60_000);
});

/**
 * Exact counts without the contacts heap: they come from narrow tables kept by statement triggers
 * (0010_contact_counts.sql). Whatever writes contacts (the sync, or plain SQL here: deletes, tag
 * and field edits, renames, inserts), each count must still equal the rows the filter selects on
 * contacts itself, and the narrow tables must equal a rebuild from contacts. Without one of the
 * insert, update or delete triggers, one of these checks fails.
 */
describe('exact counts from the narrow tables follow every write', () => {
  const db = () => env.t.ctx.db;
  let userId: number;

  /** The filter's rows counted on contacts itself, the reference every count must meet. */
  async function reference(filter: ContactFilterInput): Promise<number> {
    const [row] = await rowsOf<{ n: number }>(db(), sql`select count(*)::int as n from contacts c where ${contactFilterSql({ userId, accountId, filter })}`);
    return Number(row.n);
  }

  function extraScenarios(): Array<[string, ContactFilterInput]> {
    const [t1, t2, t3] = tagsForSeed(SEED);
    return [
      ['every contact', {}],
      ['one tag', { tags: [t3] }],
      ['three tags OR', { tags: [t1, t2, t3], tagOperator: 'OR' }],
      ['Plan in two values', { customFieldFilters: { Plan: { mode: 'specific', values: ['Pro', 'Empresa'] } } }],
      ['Ciudad contains "mar"', { customFieldFilters: { Ciudad: { mode: 'manual', manualValue: 'mar' } } }],
      ['notExists Ciudad and tag', { tags: [t1], customFieldFilters: { Ciudad: { mode: 'notExists' } } }],
      ['search and contains', { searchQuery: 'ez', customFieldFilters: { Ciudad: { mode: 'manual', manualValue: 'san' } } }],
      ['without three tags', { excludedTags: [t1, t2, t3] }],
      ['search and tag without a tag', { searchQuery: 'ez', tags: [t3], excludedTags: [t1] }],
      ['notExists Ciudad without a tag', { excludedTags: [t2], customFieldFilters: { Ciudad: { mode: 'notExists' } } }],
    ];
  }

  async function expectAllExact(when: string) {
    for (const [name, f] of [...scenarios(), ...extraScenarios()]) {
      const expected = await reference(f);
      expect({ when, name, count: await countContacts(db(), { userId, accountId, filter: f }) }).toEqual({ when, name, count: expected });
    }
    // The narrow tables equal a rebuild from contacts.
    const [diff] = await rowsOf<{ search: number; keys: number }>(
      db(),
      sql`select
        (select count(*)::int from (
          (select id, contact_search_text(name, email, phone, phone_raw) from contacts where account_id = ${accountId}
           except select contact_id, search from contact_search where account_id = ${accountId})
          union all
          (select contact_id, search from contact_search where account_id = ${accountId}
           except select id, contact_search_text(name, email, phone, phone_raw) from contacts where account_id = ${accountId})) d) as search,
        (select count(*)::int from (
          (select k, count(*) from contacts c, unnest(contact_counted_keys(c.tags, c.custom_fields)) k where c.account_id = ${accountId} group by 1
           except select key, n from contact_key_counts where account_id = ${accountId} and n <> 0)
          union all
          (select key, n from contact_key_counts where account_id = ${accountId} and n <> 0
           except select k, count(*) from contacts c, unnest(contact_counted_keys(c.tags, c.custom_fields)) k where c.account_id = ${accountId} group by 1)) d) as keys`,
    );
    expect({ when, ...diff }).toEqual({ when, search: 0, keys: 0 });
  }

  beforeAll(async () => {
    const [row] = await rowsOf<{ user_id: number }>(db(), sql`select user_id from kommo_accounts where id = ${accountId}`);
    userId = row.user_id;
  });

  it('after deletes, tag and field edits, renames and inserts, on every scenario', async () => {
    await expectAllExact('after the syncs');
    const [t1, , t3] = tagsForSeed(SEED);
    const ids = (await rowsOf<{ id: number }>(db(), sql`select id from contacts where account_id = ${accountId} order by id limit 60`)).map((r) => Number(r.id));

    await db().execute(sql`delete from contacts where id = any(${`{${ids.slice(0, 10).join(',')}}`}::bigint[])`);
    await expectAllExact('after deletes');

    await db().execute(sql`update contacts set tags = array[${t1}::text, ${t3}::text] where id = any(${`{${ids.slice(10, 30).join(',')}}`}::bigint[])`);
    await db().execute(sql`update contacts set tags = '{}' where id = any(${`{${ids.slice(30, 35).join(',')}}`}::bigint[])`);
    await expectAllExact('after tag edits');

    await db().execute(sql`update contacts set custom_fields = custom_fields - 'Origen' || '{"Plan": "Pro", "Ciudad": "Mar del Plata"}'::jsonb
      where id = any(${`{${ids.slice(35, 50).join(',')}}`}::bigint[])`);
    await db().execute(sql`update contacts set custom_fields = '{}' where id = any(${`{${ids.slice(50, 55).join(',')}}`}::bigint[])`);
    await expectAllExact('after field edits');

    await db().execute(sql`update contacts set name = 'MARTA Márquez', email = 'marta@HOTMAIL.com', phone_raw = '11 2345 0000'
      where id = any(${`{${ids.slice(55, 60).join(',')}}`}::bigint[])`);
    await expectAllExact('after renames');

    await db().execute(sql`insert into contacts (user_id, account_id, kommo_id, name, email, tags, custom_fields)
      select ${userId}, ${accountId}, 900000 + g, 'Mariano ' || g, 'm' || g || '@hotmail.com', array[${t1}::text], '{"Plan": "Empresa", "Ciudad": "San Juan"}'::jsonb
      from generate_series(1, 12) g`);
    await expectAllExact('after inserts');
  }, 60_000);

  it('the screen gets the exact count, or an estimate flagged as one while the exact count runs', async () => {
    const [, filter] = scenarios()[0];
    const expected = await reference(filter);
    // A budget of 0 ms: unless the exact count is known within moments, an estimate answers. A
    // sample of a table this small is the whole table, so even the estimate is right here.
    const counts = createCountCache(db(), { budgetMs: 0 });
    const first = await counts.count(userId, accountId, filter);
    expect(first.count).toBe(expected);
    expect(await counts.exact(userId, accountId, filter)).toBe(expected);
    // Once known, the exact figure is what every ask gets, without waiting.
    expect(await counts.count(userId, accountId, filter)).toEqual({ count: expected, approximate: false });

    // A write bumps the data version: the cached figure is never served again.
    await db().execute(sql`delete from contacts where id = (select min(id) from contacts c where ${contactFilterSql({ userId, accountId, filter })})`);
    expect(await counts.exact(userId, accountId, filter)).toBe(expected - 1);
  });
});
