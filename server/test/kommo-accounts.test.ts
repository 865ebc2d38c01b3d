import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { createKommoTestEnv, waitForSync, type KommoTestEnv } from './helpers/kommo';
import { rowsOf } from '../src/db/sql';

let env: KommoTestEnv;
let headers: { authorization: string };
let other: { authorization: string };

beforeAll(async () => {
  env = await createKommoTestEnv();
  env.sim.addAccount({ subdomain: 'acme', token: 'tok-acme', contacts: 40 });
  ({ headers } = await env.t.signUp());
  ({ headers: other } = await env.t.signUp());
});
afterAll(() => env.close());

const inject = (opts: { method: 'GET' | 'POST' | 'PUT' | 'DELETE'; url: string; headers?: Record<string, string>; payload?: unknown }) =>
  env.t.app.inject({ ...opts, headers: opts.headers ?? headers, payload: opts.payload as never });

async function create(subdomain = 'acme', h = headers) {
  const res = await inject({
    method: 'POST',
    url: '/api/kommo/accounts',
    headers: h,
    payload: { subdomain, access_token: `tok-${subdomain}`, phone_field_id: env.sim.fields('acme').phoneFieldId },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

describe('CRM accounts API', () => {
  it('needs a session', async () => {
    const res = await env.t.app.inject({ method: 'GET', url: '/api/kommo/accounts' });
    expect(res.statusCode).toBe(401);
  });

  it('creates an account, stores the token encrypted and never returns it', async () => {
    const account = await create();
    expect(account).toMatchObject({
      subdomain: 'acme',
      phone_field_id: env.sim.fields('acme').phoneFieldId,
      sync_status: 'idle',
      sync_total_contacts: 0,
      sync_progress_contacts: 0,
      last_sync_at: null,
      sync_error_message: null,
    });
    expect(JSON.stringify(account)).not.toContain('tok-acme');
    expect(account).not.toHaveProperty('access_token');
    const [row] = await rowsOf<{ access_token_enc: string }>(env.t.ctx.db,
      sql`select access_token_enc from kommo_accounts where id = ${account.id}`,
    );
    expect(row.access_token_enc).not.toContain('tok-acme');
    expect(env.t.ctx.secrets.open(row.access_token_enc)).toBe('tok-acme');

    const list = await inject({ method: 'GET', url: '/api/kommo/accounts' });
    expect(list.statusCode).toBe(200);
    expect(list.json()).toHaveLength(1);
    expect(list.body).not.toContain('tok-acme');
    await inject({ method: 'DELETE', url: `/api/kommo/accounts/${account.id}` });
  });

  it('refuses a duplicate subdomain for the same user, but not for another user', async () => {
    const a = await create('dup');
    const res = await inject({ method: 'POST', url: '/api/kommo/accounts', payload: { subdomain: 'dup', access_token: 'x', phone_field_id: 1 } });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toBe('Ya tienes una cuenta Kommo con el subdominio "dup"');
    const b = await create('dup', other);
    await inject({ method: 'DELETE', url: `/api/kommo/accounts/${a.id}` });
    await inject({ method: 'DELETE', url: `/api/kommo/accounts/${b.id}`, headers: other });
  });

  it('validates the form: required fields, integer phone field, plain subdomain', async () => {
    const cases: Array<[unknown, string]> = [
      [{ access_token: 'x', phone_field_id: 1 }, 'subdomain: El subdominio es requerido'],
      [{ subdomain: 'a', phone_field_id: 1 }, 'access_token: El token de acceso es requerido'],
      [{ subdomain: 'a', access_token: '  ', phone_field_id: 1 }, 'access_token: El token de acceso es requerido'],
      [{ subdomain: 'a', access_token: 'x' }, 'phone_field_id: El campo de teléfono es requerido'],
      [{ subdomain: 'a', access_token: 'x', phone_field_id: 1.5 }, 'phone_field_id: El campo de teléfono debe ser un número entero'],
      [{ subdomain: 'evil.com/x', access_token: 'x', phone_field_id: 1 }, 'subdomain: Subdominio inválido'],
      [{ subdomain: 'a', access_token: 'x', phone_field_id: 1, extra: 1 }, ''],
    ];
    for (const [payload, message] of cases) {
      const res = await inject({ method: 'POST', url: '/api/kommo/accounts', payload });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().error).toContain(message);
    }
    // The form sends the field id picked from the list or typed: numeric text is accepted.
    const typed = await inject({ method: 'POST', url: '/api/kommo/accounts', payload: { subdomain: ' Tipeada ', access_token: 'x', phone_field_id: '123' } });
    expect(typed.statusCode).toBe(201);
    expect(typed.json()).toMatchObject({ subdomain: 'tipeada', phone_field_id: 123 });
    await inject({ method: 'DELETE', url: `/api/kommo/accounts/${typed.json().id}` });
  });

  it('updates subdomain, phone field and token; a blank token keeps the stored one', async () => {
    const account = await create('editable');
    let res = await inject({ method: 'PUT', url: `/api/kommo/accounts/${account.id}`, payload: { phone_field_id: 77, access_token: '' } });
    expect(res.statusCode).toBe(200);
    expect(res.json().phone_field_id).toBe(77);
    let [row] = await rowsOf<{ access_token_enc: string }>(env.t.ctx.db, sql`select access_token_enc from kommo_accounts where id = ${account.id}`);
    expect(env.t.ctx.secrets.open(row.access_token_enc)).toBe('tok-editable');
    res = await inject({ method: 'PUT', url: `/api/kommo/accounts/${account.id}`, payload: { access_token: 'nuevo', subdomain: 'editada' } });
    expect(res.json().subdomain).toBe('editada');
    [row] = await rowsOf<{ access_token_enc: string }>(env.t.ctx.db, sql`select access_token_enc from kommo_accounts where id = ${account.id}`);
    expect(env.t.ctx.secrets.open(row.access_token_enc)).toBe('nuevo');
    res = await inject({ method: 'PUT', url: `/api/kommo/accounts/${account.id}`, payload: { subdomain: 'no válido' } });
    expect(res.statusCode).toBe(400);
    await inject({ method: 'DELETE', url: `/api/kommo/accounts/${account.id}` });
  });

  it('deletes an account with its contacts', async () => {
    const account = await create('borrable');
    const res = await inject({ method: 'DELETE', url: `/api/kommo/accounts/${account.id}` });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true, message: 'Cuenta eliminada exitosamente' });
    expect((await inject({ method: 'GET', url: `/api/kommo/accounts/${account.id}/sync-status` })).statusCode).toBe(404);
    expect((await inject({ method: 'DELETE', url: `/api/kommo/accounts/${account.id}` })).statusCode).toBe(404);
  });

  it('fetches the custom fields of a Kommo account for the phone-field picker', async () => {
    const res = await inject({ method: 'POST', url: '/api/kommo/custom-fields', payload: { subdomain: 'acme', access_token: 'tok-acme' } });
    expect(res.statusCode).toBe(200);
    const fields = res.json();
    expect(fields).toContainEqual({ id: env.sim.fields('acme').phoneFieldId, name: 'Teléfono', type: 'multitext', code: 'PHONE' });
    expect(fields.map((f: { name: string }) => f.name)).toEqual(expect.arrayContaining(['Email', 'Ciudad', 'Plan']));
  });

  it('explains in Spanish why fields could not be fetched, never with a 401', async () => {
    let res = await inject({ method: 'POST', url: '/api/kommo/custom-fields', payload: { subdomain: 'acme', access_token: 'equivocado' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('Kommo rechazó el token de acceso (401). Verifica el token de la cuenta.');
    res = await inject({ method: 'POST', url: '/api/kommo/custom-fields', payload: { subdomain: 'acme', access_token: '' } });
    expect(res.statusCode).toBe(400);
    const before = env.sim.stats().requests;
    for (const subdomain of ['127.0.0.1:9', 'x/../y', 'a.b', 'x?y=1', 'x#y', 'user@host']) {
      res = await inject({ method: 'POST', url: '/api/kommo/custom-fields', payload: { subdomain, access_token: 'x' } });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toContain('Subdominio inválido');
    }
    // Refused before any request left the server.
    expect(env.sim.stats().requests).toBe(before);
  });

  it('answers 502 with a Spanish message when Kommo is down', async () => {
    env.sim.injectFault({ kind: '5xx', count: 10, subdomain: 'acme', status: 503 });
    const res = await inject({ method: 'POST', url: '/api/kommo/custom-fields', payload: { subdomain: 'acme', access_token: 'tok-acme' } });
    expect(res.statusCode).toBe(502);
    expect(res.json().error).toBe('Kommo no responde (HTTP 503). Intenta de nuevo más tarde.');
    env.sim.reset();
  });

  it('starts a sync, refuses a second one while it runs, and reports its status', async () => {
    const account = await create();
    let res = await inject({ method: 'POST', url: '/api/kommo/sync-contacts', payload: { account_id: account.id } });
    expect(res.statusCode).toBe(202);
    expect(res.json()).toMatchObject({ success: true, message: 'Sincronización iniciada', account: { id: account.id, sync_status: 'syncing' } });
    res = await inject({ method: 'POST', url: '/api/kommo/sync-contacts', payload: { account_id: account.id } });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toBe('La sincronización de esta cuenta ya está en curso');
    res = await inject({ method: 'GET', url: `/api/kommo/accounts/${account.id}/sync-status` });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: account.id, sync_status: 'syncing' });
    // The sync fields, and the re-check of the phones the card polls through the same route.
    expect(Object.keys(res.json()).sort()).toEqual(
      ['id', 'last_sync_at', 'phone_recheck', 'sync_error_message', 'sync_progress_contacts', 'sync_status', 'sync_total_contacts'].sort(),
    );
    expect(res.json().phone_recheck).toBeNull();
    // No runner yet: it waits. Once one runs, the sync completes.
    env.startRunner();
    const done = await waitForSync(env.t, headers, account.id);
    expect(done).toMatchObject({ sync_status: 'synced', sync_total_contacts: 40, sync_progress_contacts: 40 });
    res = await inject({ method: 'POST', url: '/api/kommo/sync-contacts', payload: { account_id: account.id, full: 'si' } });
    expect(res.statusCode).toBe(400);
  });

  it("answers 404 for another user's account on every route", async () => {
    const mine = await create('privada');
    const id = mine.id;
    const calls: Array<{ method: 'GET' | 'POST' | 'PUT' | 'DELETE'; url: string; payload?: unknown }> = [
      { method: 'GET', url: `/api/kommo/accounts/${id}` },
      { method: 'PUT', url: `/api/kommo/accounts/${id}`, payload: { phone_field_id: 5 } },
      { method: 'DELETE', url: `/api/kommo/accounts/${id}` },
      { method: 'POST', url: '/api/kommo/sync-contacts', payload: { account_id: id } },
      { method: 'GET', url: `/api/kommo/accounts/${id}/sync-status` },
    ];
    for (const call of calls) {
      const res = await inject({ ...call, headers: other });
      expect(res.statusCode, call.url).toBe(404);
      expect(res.json().error).toBe('Cuenta Kommo no encontrada');
    }
    const list = await inject({ method: 'GET', url: '/api/kommo/accounts', headers: other });
    expect(list.json().some((a: { id: number }) => a.id === id)).toBe(false);
    // Still intact for its owner.
    expect((await inject({ method: 'GET', url: `/api/kommo/accounts/${id}` })).json().phone_field_id).toBe(mine.phone_field_id);
  });

  it('answers 400 for malformed ids', async () => {
    for (const url of ['/api/kommo/accounts/abc/sync-status', '/api/kommo/accounts/-1', '/api/kommo/accounts/99999999999']) {
      expect((await inject({ method: 'GET', url })).statusCode, url).toBe(400);
    }
  });
});
