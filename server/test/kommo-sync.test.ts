import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { contactAt } from '@masivo/simulators/data';
import { toE164 } from '../src/lib/phone';
import { createKommoTestEnv, waitForHookCheck, waitForSync, type KommoTestEnv } from './helpers/kommo';
import { rowsOf } from '../src/db/sql';

let env: KommoTestEnv;
let headers: { authorization: string };
let userId: number;

beforeAll(async () => {
  env = await createKommoTestEnv();
  ({ headers, userId } = await env.t.signUp());
  env.startRunner();
});
afterAll(() => env.close());

async function createAccount(subdomain: string, contacts: number) {
  env.sim.addAccount({ subdomain, token: `tok-${subdomain}`, contacts, seed: 7 });
  const res = await env.t.app.inject({
    method: 'POST',
    url: '/api/kommo/accounts',
    headers,
    payload: { subdomain, access_token: `tok-${subdomain}`, phone_field_id: env.sim.fields(subdomain).phoneFieldId },
  });
  expect(res.statusCode).toBe(201);
  const id = res.json().id as number;
  // The faults a test injects next must meet the sync's requests, not the webhook subscription's.
  await waitForHookCheck(env.t, id);
  return id;
}

async function sync(accountId: number, full?: boolean) {
  const res = await env.t.app.inject({
    method: 'POST',
    url: '/api/kommo/sync-contacts',
    headers,
    payload: full === undefined ? { account_id: accountId } : { account_id: accountId, full },
  });
  expect(res.statusCode).toBe(202);
  return waitForSync(env.t, headers, accountId);
}

async function contactRows(accountId: number) {
  return rowsOf<{ kommo_id: string; name: string; phone: string | null; phone_raw: string | null; email: string | null; tags: string[]; custom_fields: Record<string, string> }>(env.t.ctx.db,
    sql`select kommo_id, name, phone, phone_raw, email, tags, custom_fields from contacts where account_id = ${accountId} order by kommo_id`,
  );
}

describe('contact sync', () => {
  it('syncs every contact of the account with phone, email, tags and custom fields', async () => {
    const id = await createAccount('uno', 1200);
    const status = await sync(id);
    expect(status).toMatchObject({ sync_status: 'synced', sync_total_contacts: 1200, sync_progress_contacts: 1200, sync_error_message: null });
    expect(status.last_sync_at).toBeTruthy();
    const rows = await contactRows(id);
    expect(rows).toHaveLength(1200);
    // Every number written in international form (or national Argentine, the account's country)
    // becomes the E.164 the generator meant; other national numbers cannot be placed and stay raw.
    let checked = 0;
    for (const r of rows) {
      const g = contactAt(7, Number(r.kommo_id) - 1);
      if (r.phone) {
        expect(r.phone).toBe(toE164(r.phone_raw!, 'AR'));
      }
      if (g.phoneKind === 'valid' && (/^(\+|00|\(\+)/.test(g.phones[0].value) || g.country === 'AR')) {
        expect(r.phone, g.phones[0].value).toBe(g.e164);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(600);
    expect(rows.some((r) => r.phone === null && r.phone_raw)).toBe(true); // invalid numbers keep the raw text
    expect(rows.filter((r) => r.email).length).toBeGreaterThan(600);
    expect(rows.filter((r) => r.tags.length > 0).length).toBeGreaterThan(300);
    const fields = new Set(rows.flatMap((r) => Object.keys(r.custom_fields)));
    expect([...fields].sort()).toEqual(['Ciudad', 'Fecha de nacimiento', 'Origen', 'Plan']);
    expect(rows.find((r) => r.custom_fields['Fecha de nacimiento'])?.custom_fields['Fecha de nacimiento']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const [{ n }] = await rowsOf<{ n: number }>(env.t.ctx.db, sql`select count(*)::int n from kommo_custom_fields where account_id = ${id}`);
    expect(n).toBe(7);
    const [{ country }] = await rowsOf<{ country: string }>(env.t.ctx.db, sql`select country from kommo_accounts where id = ${id}`);
    expect(country).toBe('AR');
  });

  it('normalises national numbers with the account country and keeps the raw value', async () => {
    const id = await createAccount('dos', 5);
    env.sim.updateContact('dos', 1, { phone: '011 15-2345-6789', tags: ['vip'], custom: { Ciudad: 'Rosario' } });
    env.sim.updateContact('dos', 2, { phone: '+54 9 11 1234-5678' });
    await sync(id);
    const rows = await contactRows(id);
    expect(rows[0]).toMatchObject({ phone: '+5491123456789', phone_raw: '011 15-2345-6789', tags: ['vip'] });
    expect(rows[0].custom_fields.Ciudad).toBe('Rosario');
    expect(rows[1]).toMatchObject({ phone: '+5491112345678', phone_raw: '+54 9 11 1234-5678' });
  });

  it('fetches only changes on a later sync and removes deleted contacts on a full one', async () => {
    const id = await createAccount('tres', 600);
    await sync(id);
    env.sim.reset();
    env.sim.updateContact('tres', 10, { name: 'Nombre Cambiado' });
    env.sim.addContacts('tres', 3);
    env.sim.deleteContact('tres', 20);
    const incremental = await sync(id);
    expect(incremental).toMatchObject({ sync_status: 'synced', sync_total_contacts: 603 });
    // An incremental sync reads the changed contacts, not all 600 again.
    expect(env.sim.stats().by_status['200']).toBeLessThan(6);
    let rows = await contactRows(id);
    expect(rows.find((r) => Number(r.kommo_id) === 10)?.name).toBe('Nombre Cambiado');
    expect(rows).toHaveLength(603);
    const full = await sync(id, true);
    expect(full).toMatchObject({ sync_status: 'synced', sync_total_contacts: 602, sync_progress_contacts: 602 });
    rows = await contactRows(id);
    expect(rows.some((r) => Number(r.kommo_id) === 20)).toBe(false);
  });

  it('retries server errors and page failures without losing contacts', async () => {
    const id = await createAccount('cuatro', 800);
    env.sim.injectFault({ kind: '5xx', count: 2, subdomain: 'cuatro', status: 503 });
    env.sim.injectFault({ kind: 'failPageOnce', page: 2, subdomain: 'cuatro' });
    const status = await sync(id);
    expect(status).toMatchObject({ sync_status: 'synced', sync_total_contacts: 800 });
  });

  it('ends in error with a Spanish message when Kommo keeps failing, keeping what was synced', async () => {
    const id = await createAccount('cinco', 300);
    await sync(id);
    env.sim.injectFault({ kind: '5xx', count: 50, subdomain: 'cinco', status: 500 });
    const status = await sync(id, true);
    expect(status.sync_status).toBe('error');
    expect(status.sync_error_message).toContain('Kommo no responde (HTTP 500)');
    expect(await contactRows(id)).toHaveLength(300);
    env.sim.reset();
  });

  it('reports a rejected token', async () => {
    const id = await createAccount('seis', 10);
    env.sim.injectFault({ kind: 'unauthorized', subdomain: 'seis' });
    const status = await sync(id);
    expect(status).toMatchObject({ sync_status: 'error' });
    expect(status.sync_error_message).toMatch(/^Kommo rechazó el token de acceso \(401\)/);
  });

  it('gives up on a hanging Kommo after the timeout and retries', async () => {
    const id = await createAccount('siete', 10);
    env.sim.injectFault({ kind: 'timeout', subdomain: 'siete', count: 1 });
    const status = await sync(id);
    expect(status).toMatchObject({ sync_status: 'synced', sync_total_contacts: 10 });
  });

  it('resumes after a restart from the saved cursor instead of starting over', async () => {
    const id = await createAccount('reanuda', 5000);
    env.sim.configure({ latencyMs: 40 });
    const res = await env.t.app.inject({ method: 'POST', url: '/api/kommo/sync-contacts', headers, payload: { account_id: id } });
    expect(res.statusCode).toBe(202);
    // Let a few pages land, then stop the process the hard way: the lease is left behind.
    for (let i = 0; i < 200; i++) {
      const [row] = await rowsOf<{ p: number }>(env.t.ctx.db, sql`select sync_progress_contacts p from kommo_accounts where id = ${id}`);
      if (row.p >= 1000) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    await env.runner!.stop();
    await env.t.ctx.db.execute(sql`update kommo_accounts set sync_lease_owner = 'dead', sync_lease_expires_at = now() + interval '1 hour' where id = ${id}`);
    const [mid] = await rowsOf<{ sync_status: string; p: number; sync_state: { cursor?: unknown } }>(env.t.ctx.db,
      sql`select sync_status, sync_progress_contacts p, sync_state from kommo_accounts where id = ${id}`,
    );
    expect(mid.sync_status).toBe('syncing');
    expect(mid.p).toBeGreaterThan(0);
    expect(mid.p).toBeLessThan(5000);
    expect(mid.sync_state.cursor).toBeTruthy();
    env.sim.configure({ latencyMs: 0 });
    await new Promise((r) => setTimeout(r, 150)); // a request cut off by the stop may still land
    env.sim.reset();
    // While the dead process's lease is live, a new runner leaves the account alone.
    env.startRunner();
    await new Promise((r) => setTimeout(r, 300));
    expect(env.sim.stats().requests).toBe(0);
    await env.t.ctx.db.execute(sql`update kommo_accounts set sync_lease_expires_at = now() - interval '1 second' where id = ${id}`);
    const status = await waitForSync(env.t, headers, id);
    expect(status).toMatchObject({ sync_status: 'synced', sync_total_contacts: 5000, sync_progress_contacts: 5000 });
    // Only the pages not yet written were read again (20 pages in all, plus one window of overlap).
    const pagesRead = env.sim.stats().by_status['200'] ?? 0;
    expect(pagesRead).toBeLessThan(20 - Math.floor(mid.p / 250) + 5);
  });

  it('never runs one account twice at once, even with two runners', async () => {
    const id = await createAccount('unica', 3000);
    const second = (await import('../src/engine/kommo-sync/sync-runner')).startKommoSyncRunner(
      { ...env.t.ctx, instanceId: 'segundo-proceso' },
      { pollMs: 10, leaseMs: 5000 },
    );
    try {
      env.sim.reset();
      const status = await sync(id);
      expect(status).toMatchObject({ sync_status: 'synced', sync_total_contacts: 3000 });
      // Account + fields + 13 contact pages (windows overlap by a contact or two): a double run reads ~30.
      expect(env.sim.stats().by_status['200']).toBeLessThanOrEqual(16);
    } finally {
      await second.stop();
    }
  });

  it('keeps every contact of one user apart from other users', async () => {
    const [{ n }] = await rowsOf<{ n: number }>(env.t.ctx.db, sql`select count(*)::int n from contacts where user_id <> ${userId}`);
    expect(n).toBe(0);
  });
});
