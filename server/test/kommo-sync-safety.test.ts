import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { confirmUnseen } from '../src/engine/kommo-sync/prune-guard';
import { startKommoSyncRunner } from '../src/engine/kommo-sync/sync-runner';
import { createKommoClient } from '../src/integrations/kommo/client';
import { createKommoTestEnv, waitForSync, type KommoTestEnv } from './helpers/kommo';
import { rowsOf } from '../src/db/sql';

let env: KommoTestEnv;
let headers: { authorization: string };

beforeAll(async () => {
  env = await createKommoTestEnv();
  ({ headers } = await env.t.signUp());
  env.startRunner();
});
afterAll(() => env.close());

async function createAccount(subdomain: string, contacts: number, h = headers) {
  env.sim.addAccount({ subdomain, token: `tok-${subdomain}`, contacts, seed: 3 });
  const res = await env.t.app.inject({
    method: 'POST',
    url: '/api/kommo/accounts',
    headers: h,
    payload: { subdomain, access_token: `tok-${subdomain}`, phone_field_id: env.sim.fields(subdomain).phoneFieldId },
  });
  expect(res.statusCode).toBe(201);
  return res.json().id as number;
}

async function startSync(accountId: number, full?: boolean, h = headers) {
  const res = await env.t.app.inject({
    method: 'POST',
    url: '/api/kommo/sync-contacts',
    headers: h,
    payload: full === undefined ? { account_id: accountId } : { account_id: accountId, full },
  });
  expect(res.statusCode).toBe(202);
}

async function sync(accountId: number, full?: boolean) {
  await startSync(accountId, full);
  return waitForSync(env.t, headers, accountId);
}

async function count(accountId: number) {
  const [{ n }] = await rowsOf<{ n: number }>(env.t.ctx.db, sql`select count(*)::int n from contacts where account_id = ${accountId}`);
  return Number(n);
}

async function waitProgress(accountId: number, min: number) {
  for (let i = 0; i < 400; i++) {
    const [row] = await rowsOf<{ p: number }>(env.t.ctx.db, sql`select sync_progress_contacts p from kommo_accounts where id = ${accountId}`);
    if (row.p >= min) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('the sync made no progress');
}

describe('M4: a full sync never mass-deletes', () => {
  it('a 200 {} for the third page fails the sync and deletes nothing', async () => {
    const id = await createAccount('vacia', 1000);
    expect(await sync(id)).toMatchObject({ sync_status: 'synced', sync_total_contacts: 1000 });
    // Two pages are read, then the list answers 200 {} (a faulty proxy in front of Kommo).
    env.sim.injectFault({ kind: 'emptyOk', subdomain: 'vacia', skip: 2, count: 50 });
    const status = await sync(id, true);
    expect(status.sync_status).toBe('error');
    expect(status.sync_error_message).toMatch(/respuesta incompleta o inválida/);
    expect(await count(id)).toBe(1000);
    env.sim.reset();
  });

  it('one 200 {} is retried and the sync completes', async () => {
    const id = await createAccount('vaciauna', 600);
    env.sim.injectFault({ kind: 'emptyOk', subdomain: 'vaciauna', page: 2, count: 1 });
    expect(await sync(id, true)).toMatchObject({ sync_status: 'synced', sync_total_contacts: 600 });
    expect(await count(id)).toBe(600);
  });

  it('a routine full sync refuses to delete more than 30% and says so in Spanish; an explicit one applies it', async () => {
    const id = await createAccount('borrados', 100);
    await sync(id);
    for (let k = 1; k <= 40; k++) env.sim.deleteContact('borrados', k);
    // The daily full sync is due.
    await env.t.ctx.db.execute(sql`update kommo_accounts set sync_full_at = now() - interval '2 days' where id = ${id}`);
    const refused = await sync(id);
    expect(refused.sync_status).toBe('error');
    expect(refused.sync_error_message).toMatch(/no eliminó ningún contacto.*40 de 100/);
    expect(await count(id)).toBe(100);
    const explicit = await sync(id, true);
    expect(explicit).toMatchObject({ sync_status: 'synced', sync_total_contacts: 60 });
    expect(await count(id)).toBe(60);
  });

  it('contacts edited in Kommo during a full sync are all kept (shift probe)', async () => {
    const id = await createAccount('desliza', 3000);
    await sync(id);
    env.sim.configure({ latencyMs: 30 });
    await startSync(id, true);
    let edits = 0;
    for (;;) {
      const res = await env.t.app.inject({ method: 'GET', url: `/api/kommo/accounts/${id}/sync-status`, headers });
      if (res.json().sync_status !== 'syncing') break;
      env.sim.updateContact('desliza', 1 + Math.floor(Math.random() * 3000), { name: `Editado ${edits++}` });
      await new Promise((r) => setTimeout(r, 5));
    }
    env.sim.configure({ latencyMs: 0 });
    expect(edits).toBeGreaterThan(10);
    const status = await waitForSync(env.t, headers, id);
    expect(status).toMatchObject({ sync_status: 'synced', sync_total_contacts: 3000 });
    expect(await count(id)).toBe(3000);
  });
});

describe('M4: the check by id before deleting', () => {
  it('keeps every unseen contact Kommo still has, and only those', async () => {
    const id = await createAccount('revisa', 120);
    await sync(id);
    env.sim.deleteContact('revisa', 7);
    const [acc] = await rowsOf<{ user_id: number; g: number }>(env.t.ctx.db,
      sql`select user_id, sync_generation g from kommo_accounts where id = ${id}`,
    );
    // As if the walk of a new generation had seen nothing: every contact is unseen.
    const generation = Number(acc.g) + 1;
    const client = createKommoClient({ baseUrlTemplate: env.sim.baseUrlTemplate, rps: 50 });
    await confirmUnseen({
      db: env.t.ctx.db,
      client,
      creds: { subdomain: 'revisa', accessToken: 'tok-revisa' },
      account: { id, userId: Number(acc.user_id) },
      generation,
      explicit: true,
      mapper: { phoneFieldId: env.sim.fields('revisa').phoneFieldId, country: 'AR' },
      signal: new AbortController().signal,
    });
    const unseen = await rowsOf<{ kommo_id: string }>(env.t.ctx.db,
      sql`select kommo_id from contacts where account_id = ${id} and sync_generation <> ${generation}`,
    );
    expect(unseen.map((r) => Number(r.kommo_id))).toEqual([7]);
  });
});

describe('M5: text that ends in an emoji at the limit', () => {
  it('syncs names and fields with 499 / 999 "a" followed by an emoji', async () => {
    const id = await createAccount('emoji', 3);
    const field = env.sim.fields('emoji').custom.find((f) => f.type === 'text')?.name ?? 'Ciudad';
    env.sim.updateContact('emoji', 1, {
      name: 'a'.repeat(499) + '😀',
      first_name: 'a'.repeat(299) + '😀',
      custom: { [field]: 'a'.repeat(999) + '😀' },
      tags: ['a'.repeat(199) + '😀'],
    });
    env.sim.updateContact('emoji', 2, { name: 'b'.repeat(500) + '😀', first_name: 'solo \ud83d mitad' });
    const status = await sync(id);
    expect(status).toMatchObject({ sync_status: 'synced', sync_total_contacts: 3 });
    const rows = await rowsOf<{ kommo_id: string; name: string; first_name: string }>(env.t.ctx.db,
      sql`select kommo_id, name, first_name from contacts where account_id = ${id} order by kommo_id`,
    );
    expect(rows[0].name).toBe('a'.repeat(499) + '😀');
    expect(rows[1].name).toBe('b'.repeat(500));
    expect(rows[1].first_name).toBe('solo \ufffd mitad');
  });
});

describe('M11: edits, cancel and fair slots', () => {
  it('refuses credential edits while a sync runs, cancels it promptly, keeps what was synced', async () => {
    const id = await createAccount('cancela', 5000);
    env.sim.configure({ latencyMs: 40 });
    await startSync(id, true);
    await waitProgress(id, 500);

    const edit = await env.t.app.inject({ method: 'PUT', url: `/api/kommo/accounts/${id}`, headers, payload: { subdomain: 'otra' } });
    expect(edit.statusCode).toBe(409);
    expect(edit.json().error).toMatch(/mientras la cuenta se sincroniza/);

    const cancel = await env.t.app.inject({ method: 'POST', url: `/api/kommo/accounts/${id}/cancel-sync`, headers });
    expect(cancel.statusCode).toBe(200);
    expect(cancel.json().account).toMatchObject({ sync_status: 'error' });
    expect(cancel.json().account.sync_error_message).toMatch(/Sincronización cancelada/);
    const kept = await count(id);
    expect(kept).toBeGreaterThan(0);

    // The job stops at once: Kommo hears nothing more from it.
    await new Promise((r) => setTimeout(r, 150));
    const before = env.sim.stats().requests;
    await new Promise((r) => setTimeout(r, 500));
    expect(env.sim.stats().requests).toBe(before);
    env.sim.configure({ latencyMs: 0 });

    const after = await env.t.app.inject({ method: 'GET', url: `/api/kommo/accounts/${id}/sync-status`, headers });
    expect(after.json().sync_status).toBe('error');
    expect(await count(id)).toBeGreaterThanOrEqual(kept);

    const again = await env.t.app.inject({ method: 'POST', url: `/api/kommo/accounts/${id}/cancel-sync`, headers });
    expect(again.statusCode).toBe(409);
    const editNow = await env.t.app.inject({ method: 'PUT', url: `/api/kommo/accounts/${id}`, headers, payload: { phone_field_id: 12345 } });
    expect(editNow.statusCode).toBe(200);
  });

  it("another user's account cannot be cancelled", async () => {
    const id = await createAccount('ajena', 10);
    const other = await env.t.signUp();
    const res = await env.t.app.inject({ method: 'POST', url: `/api/kommo/accounts/${id}/cancel-sync`, headers: other.headers });
    expect(res.statusCode).toBe(404);
  });

  it("one user's slow syncs do not hold every slot of the worker", async () => {
    await env.runner?.stop();
    const client = createKommoClient({ baseUrlTemplate: env.sim.baseUrlTemplate, rps: 50, timeoutMs: 1500, retries: 3, backoffMs: 20 });
    const runner = startKommoSyncRunner(env.t.ctx, { client, pollMs: 50, leaseMs: 5000, maxConcurrent: 2 });
    try {
      const hog = await env.t.signUp();
      const a1 = await createAccount('lento1', 4000, hog.headers);
      const a2 = await createAccount('lento2', 4000, hog.headers);
      const b = await createAccount('rapido', 10);
      env.sim.configure({ latencyMs: 60 });
      await startSync(a1, undefined, hog.headers);
      await startSync(a2, undefined, hog.headers);
      await new Promise((r) => setTimeout(r, 200));
      await startSync(b);
      const status = await waitForSync(env.t, headers, b, 10_000);
      expect(status.sync_status).toBe('synced');
      const slow = await rowsOf<{ s: string }>(env.t.ctx.db, sql`select sync_status s from kommo_accounts where id in (${a1}, ${a2})`);
      expect(slow.some((r) => r.s === 'syncing')).toBe(true);
      env.sim.configure({ latencyMs: 0 });
      await waitForSync(env.t, hog.headers, a1, 30_000);
      await waitForSync(env.t, hog.headers, a2, 30_000);
    } finally {
      env.sim.configure({ latencyMs: 0 });
      await runner.stop();
    }
  });
});

describe('M7 / L1: bounded inputs', () => {
  it('"Obtener Campos" is limited per user with a Spanish 429', async () => {
    env.sim.addAccount({ subdomain: 'campos', token: 'tok-campos', contacts: 1 });
    const user = await env.t.signUp();
    const codes: number[] = [];
    for (let i = 0; i < 11; i++) {
      const res = await env.t.app.inject({
        method: 'POST',
        url: '/api/kommo/custom-fields',
        headers: user.headers,
        payload: { subdomain: 'campos', access_token: 'tok-campos' },
      });
      codes.push(res.statusCode);
      if (res.statusCode === 429) expect(res.json().error).toMatch(/Demasiadas consultas/);
    }
    expect(codes.slice(0, 10).every((c) => c === 200)).toBe(true);
    expect(codes[10]).toBe(429);
    // Another user still has their own budget.
    const res = await env.t.app.inject({ method: 'POST', url: '/api/kommo/custom-fields', headers, payload: { subdomain: 'campos', access_token: 'tok-campos' } });
    expect(res.statusCode).toBe(200);
  });

  it('phone_field_id above 2^31-1 is a Spanish 400 on create and edit', async () => {
    const create = await env.t.app.inject({
      method: 'POST',
      url: '/api/kommo/accounts',
      headers,
      payload: { subdomain: 'grande', access_token: 't', phone_field_id: 2147483648 },
    });
    expect(create.statusCode).toBe(400);
    expect(create.json().error).toMatch(/campo de teléfono/i);
    const id = await createAccount('grande2', 1);
    const edit = await env.t.app.inject({ method: 'PUT', url: `/api/kommo/accounts/${id}`, headers, payload: { phone_field_id: 2 ** 40 } });
    expect(edit.statusCode).toBe(400);
  });
});
