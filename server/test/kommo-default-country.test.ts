import { sql } from 'drizzle-orm';
import { getCountries, isSupportedCountry } from 'libphonenumber-js/max';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contactAt } from '@masivo/simulators/data';
import { PHONE_COUNTRIES } from '@masivo/contract/phone-countries';
import { rowsOf } from '../src/db/sql';
import { toE164 } from '../src/lib/phone';
import { COUNTRY_WHILE_SYNCING } from '../src/services/kommo-accounts/kommo-accounts-service';
import { insertContact, seedCampaignWorld, type CampaignWorld } from './helpers/campaign-fixtures';
import { createKommoTestEnv, waitForSync, type KommoTestEnv } from './helpers/kommo';

/**
 * "País por defecto" of a Kommo account: national numbers ("3126547882", "(81) 8239-7087") are
 * read in it, and a change re-reads the stored phones in the background, with everything the
 * pre-flight counts from (phone key, facets, people, prefixes) following.
 */
let env: KommoTestEnv;
let headers: { authorization: string };
let userId: number;
let w: CampaignWorld;

beforeAll(async () => {
  env = await createKommoTestEnv();
  ({ headers, userId } = await env.t.signUp());
  env.startRunner();
  w = await seedCampaignWorld(env.t.ctx.db, env.t.ctx.secrets, userId, { number: { phoneNumberId: '4401', wabaId: '4402', token: 'tok' } });
  // The account is Argentine in Kommo (the fixture's country); its contacts were typed in several countries.
  const add = (kommoId: number, name: string, raw: string | null, tags = ['general']) =>
    insertContact(env.t.ctx.db, userId, w.kommoAccountId, { kommoId, name, phone: toE164(raw, 'AR'), phoneRaw: raw, tags });
  await add(1, 'Colombia nacional', '3126547882', ['vip']);
  await add(2, 'México nacional', '(81) 8239-7087', ['vip']);
  await add(3, 'Argentina internacional', '+54 9 11 2345-6789', ['vip']);
  await add(4, 'Sin teléfono', null);
  await add(5, 'Colombia internacional', '+57 300 123 4567');
  await add(6, 'Con BSUID', 'AR.ABC123');
});
afterAll(() => env.close());

const put = (id: number, payload: object) => env.t.app.inject({ method: 'PUT', url: `/api/kommo/accounts/${id}`, headers, payload });

/** Names of the contacts the pre-flight counts as "sin teléfono válido", and the count itself. */
async function invalid(filter: { tags: string[] } = { tags: [] }) {
  const body = {
    kommo_account_id: w.kommoAccountId,
    whatsapp_account_id: w.whatsappAccountId,
    template_id: w.templateId,
    filters: { searchQuery: '', tags: filter.tags, tagOperator: 'OR', customFieldFilters: {} },
  };
  const pre = await env.t.app.inject({ method: 'POST', url: '/api/campaigns/preflight', headers, payload: body });
  expect(pre.statusCode, pre.body).toBe(200);
  const count = pre.json().excluded.find((e: { reason: string }) => e.reason === 'invalid_phone').count as number;
  const list = await env.t.app.inject({ method: 'POST', url: '/api/campaigns/preflight/excluded?reason=invalid_phone', headers, payload: body });
  expect(list.statusCode, list.body).toBe(200);
  const names = (list.json().contacts as Array<{ name: string }>).map((c) => c.name).sort();
  return { count, names };
}

/** Every table the triggers keep from contacts.phone holds what a recount from contacts gives. */
async function expectDerivedTablesConsistent(accountId: number) {
  const db = env.t.ctx.db;
  const facets = await rowsOf<{ n: number }>(db, sql`select count(*)::int as n from contacts c join contact_facets f on f.contact_id = c.id
    where c.account_id = ${accountId} and f.phone_key is distinct from c.phone_key`);
  expect(facets[0].n).toBe(0);
  const people = await rowsOf(db, sql`select phone_key, n from contact_people where account_id = ${accountId} order by phone_key`);
  const recount = await rowsOf(db, sql`select phone_key, count(*)::int as n from contacts where account_id = ${accountId} and phone_key is not null group by 1 order by 1`);
  expect(people).toEqual(recount);
  const prefixes = await rowsOf(db, sql`select prefix, people, contacts from contact_people_prefixes where account_id = ${accountId} and contacts > 0 order by prefix`);
  const reprefix = await rowsOf(db, sql`select left(phone_key, 4) as prefix, count(distinct phone_key)::int as people, count(*)::int as contacts
    from contacts where account_id = ${accountId} and phone_key is not null group by 1 order by 1`);
  expect(prefixes).toEqual(reprefix);
  const search = await rowsOf<{ n: number }>(db, sql`select count(*)::int as n from contacts c join contact_search s on s.contact_id = c.id
    where c.account_id = ${accountId} and c.phone is not null and position(c.phone in s.search) = 0`);
  expect(search[0].n).toBe(0);
}

describe('the default country setting', () => {
  it('offers exactly the ISO 3166-1 countries libphonenumber can read', () => {
    for (const code of PHONE_COUNTRIES) expect(isSupportedCountry(code), code).toBe(true);
    expect([...PHONE_COUNTRIES].sort()).toEqual(getCountries().filter((c) => !['AC', 'TA', 'XK'].includes(c)).sort());
  });

  it('refuses what is not a country code with a Spanish error, and changes nothing', async () => {
    for (const bad of ['ZZ', 'COL', 'C', 57, true, ['CO'], 'XK']) {
      const res = await put(w.kommoAccountId, { default_country: bad });
      expect(res.statusCode, String(bad)).toBe(400);
      expect(res.json().error).toMatch(/País por defecto inválido/);
    }
    const account = (await env.t.app.inject({ method: 'GET', url: `/api/kommo/accounts/${w.kommoAccountId}`, headers })).json();
    expect(account).toMatchObject({ country: 'AR', default_country: null, phone_recheck: null, sync_status: 'idle' });
  });

  it('reads "3126547882" as Colombian once the account says CO, and "(81) 8239-7087" as Mexican with MX', async () => {
    expect(await invalid()).toEqual({ count: 3, names: ['Colombia nacional', 'México nacional', 'Sin teléfono'] });

    const res = await put(w.kommoAccountId, { default_country: ' co ' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ default_country: 'CO', sync_status: 'syncing', phone_recheck: { status: 'running', country: 'CO', total: 6 } });
    const done = await waitForSync(env.t, headers, w.kommoAccountId);
    // The account goes back to the status it had, with the result on its card.
    expect(done).toMatchObject({
      sync_status: 'idle',
      phone_recheck: { status: 'done', country: 'CO', processed: 6, total: 6, became_valid: 1, became_invalid: 0, changed: 0 },
    });
    expect(done.phone_recheck.finished_at).toBeTruthy();
    expect(await invalid()).toEqual({ count: 2, names: ['México nacional', 'Sin teléfono'] });
    expect(await invalid({ tags: ['vip'] })).toEqual({ count: 1, names: ['México nacional'] });
    await expectDerivedTablesConsistent(w.kommoAccountId);
    const [co] = await rowsOf<{ phone: string; phone_raw: string }>(env.t.ctx.db, sql`select phone, phone_raw from contacts where account_id = ${w.kommoAccountId} and kommo_id = 1`);
    expect(co).toEqual({ phone: '+573126547882', phone_raw: '3126547882' });

    expect((await put(w.kommoAccountId, { default_country: 'MX' })).statusCode).toBe(200);
    const mx = await waitForSync(env.t, headers, w.kommoAccountId);
    // In Mexico "3126547882" is a valid number too (a Colima line): a default country decides.
    expect(mx.phone_recheck).toMatchObject({ status: 'done', country: 'MX', became_valid: 1, became_invalid: 0, changed: 1 });
    expect(await invalid()).toEqual({ count: 1, names: ['Sin teléfono'] });
    await expectDerivedTablesConsistent(w.kommoAccountId);

    // Blank follows Kommo's country again: the national numbers are invalid again.
    const back = await put(w.kommoAccountId, { default_country: '' });
    expect(back.json()).toMatchObject({ default_country: null, phone_recheck: { status: 'running', country: 'AR' } });
    const ar = await waitForSync(env.t, headers, w.kommoAccountId);
    expect(ar.phone_recheck).toMatchObject({ status: 'done', country: 'AR', became_valid: 0, became_invalid: 2, changed: 0 });
    expect(await invalid()).toEqual({ count: 3, names: ['Colombia nacional', 'México nacional', 'Sin teléfono'] });
    await expectDerivedTablesConsistent(w.kommoAccountId);
  });

  it('saving the country that is already in force re-checks nothing', async () => {
    const res = await put(w.kommoAccountId, { default_country: 'AR' });
    expect(res.json()).toMatchObject({ default_country: 'AR', sync_status: 'idle', phone_recheck: { status: 'done', country: 'AR' } });
    expect((await put(w.kommoAccountId, { default_country: null })).json()).toMatchObject({ default_country: null, sync_status: 'idle' });
  });

  it('refuses a new country while the account syncs, and a cancelled re-check is finished by saving it again', async () => {
    const db = env.t.ctx.db;
    const id = w.kommoAccountId;
    // A sync held by another process (its lease is live, so this runner leaves it alone).
    await db.execute(sql`update kommo_accounts set sync_status = 'syncing', sync_state = '{"requested":"auto"}',
      sync_lease_owner = 'otro', sync_lease_expires_at = now() + interval '1 hour' where id = ${id}`);
    const refused = await put(id, { default_country: 'CO' });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error).toBe(COUNTRY_WHILE_SYNCING);
    const [kept] = await rowsOf(db, sql`select default_country, sync_state from kommo_accounts where id = ${id}`);
    expect(kept).toEqual({ default_country: null, sync_state: { requested: 'auto' } });
    await db.execute(sql`update kommo_accounts set sync_status = 'synced', sync_state = null, sync_lease_owner = null, sync_lease_expires_at = null where id = ${id}`);

    // A re-check cancelled by the operator before any worker took it: the account is as before,
    // the re-check interrupted.
    await env.runner!.stop();
    expect((await put(id, { default_country: 'CO' })).statusCode).toBe(200);
    const cancel = await env.t.app.inject({ method: 'POST', url: `/api/kommo/accounts/${id}/cancel-sync`, headers });
    expect(cancel.statusCode).toBe(200);
    const interrupted = (await env.t.app.inject({ method: 'GET', url: `/api/kommo/accounts/${id}`, headers })).json();
    expect(interrupted).toMatchObject({ sync_status: 'synced', sync_error_message: null, default_country: 'CO', phone_recheck: { status: 'interrupted', processed: 0 } });
    expect((await invalid()).count).toBe(3);

    env.startRunner();
    expect((await put(id, { default_country: 'CO' })).json()).toMatchObject({ sync_status: 'syncing', phone_recheck: { status: 'running' } });
    const done = await waitForSync(env.t, headers, id);
    expect(done).toMatchObject({ sync_status: 'synced', phone_recheck: { status: 'done', country: 'CO', became_valid: 1 } });
    expect((await invalid()).count).toBe(2);
  });
});

describe('the re-check against a synced account', () => {
  it('stores what a full sync in the new country stores, without asking Kommo', async () => {
    const subdomain = 'paisdefecto';
    env.sim.addAccount({ subdomain, token: `tok-${subdomain}`, contacts: 1500, seed: 11 });
    const created = await env.t.app.inject({
      method: 'POST',
      url: '/api/kommo/accounts',
      headers,
      payload: { subdomain, access_token: `tok-${subdomain}`, phone_field_id: env.sim.fields(subdomain).phoneFieldId },
    });
    const id = created.json().id as number;
    const sync = async (full: boolean) => {
      const res = await env.t.app.inject({ method: 'POST', url: '/api/kommo/sync-contacts', headers, payload: { account_id: id, full } });
      expect(res.statusCode).toBe(202);
      return waitForSync(env.t, headers, id);
    };
    await sync(true);
    const phones = async () =>
      new Map(
        (await rowsOf<{ kommo_id: string; phone: string | null; phone_raw: string | null }>(
          env.t.ctx.db,
          sql`select kommo_id, phone, phone_raw from contacts where account_id = ${id}`,
        )).map((r) => [Number(r.kommo_id), r]),
      );
    const before = await phones();
    const validBefore = [...before.values()].filter((r) => r.phone).length;

    const requestsBefore = env.sim.stats().requests;
    expect((await put(id, { default_country: 'CO' })).statusCode).toBe(200);
    const done = await waitForSync(env.t, headers, id);
    expect(env.sim.stats().requests).toBe(requestsBefore);
    expect(done.phone_recheck).toMatchObject({ status: 'done', processed: 1500, total: 1500 });
    const after = await phones();
    for (const r of after.values()) expect(r.phone, r.phone_raw ?? '').toBe(toE164(r.phone_raw, 'CO'));
    const validAfter = [...after.values()].filter((r) => r.phone).length;
    expect(validAfter - validBefore).toBe(done.phone_recheck.became_valid - done.phone_recheck.became_invalid);
    expect(done.phone_recheck.became_valid).toBeGreaterThan(20);
    await expectDerivedTablesConsistent(id);

    // A full sync now reads Kommo again in Colombia: it stores the same phones, except for a contact
    // whose first Kommo phone only Colombia can read (the re-check knows only the stored one).
    await sync(true);
    const resynced = await phones();
    for (const [kommoId, r] of resynced) {
      const g = contactAt(11, kommoId - 1);
      if (g.phones.length > 1 && r.phone_raw !== after.get(kommoId)?.phone_raw) continue;
      expect(r.phone, `${kommoId} ${r.phone_raw}`).toBe(after.get(kommoId)?.phone);
    }
    await expectDerivedTablesConsistent(id);
  });
});
