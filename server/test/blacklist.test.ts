import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from './helpers/app';
import { blacklistedKeys } from '../src/services/blacklist/is-blacklisted';
import { normalizePhoneKey } from '../src/lib/phone';

let t: TestApp;
let headers: { authorization: string };
let other: { authorization: string };
let userId: number;
let accountId: number;
let secondAccountId: number;

beforeAll(async () => {
  t = await createTestApp();
  ({ headers, userId } = await t.signUp());
  ({ headers: other } = await t.signUp());
  const make = async (subdomain: string) =>
    (await t.app.inject({ method: 'POST', url: '/api/kommo/accounts', headers, payload: { subdomain, access_token: 'x', phone_field_id: 1 } })).json().id;
  accountId = await make('negra');
  secondAccountId = await make('otra');
  // The account's country (set by its first sync) reads national numbers.
  await t.ctx.db.execute(sql`update kommo_accounts set country = 'AR' where id = ${accountId}`);
});
afterAll(() => t.close());

const call = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown, h = headers) =>
  t.app.inject({ method, url, headers: h, payload: payload as never });

describe('blacklist API', () => {
  it('adds a number in E.164 with its reason and lists it', async () => {
    const res = await call('POST', `/api/blacklist/${accountId}`, { phone: '+54 9 11 1234-5678', reason: 'Pidió no recibir mensajes' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ phone: '+5491112345678', reason: 'Pidió no recibir mensajes' });
    expect(new Date(res.json().created_at).getTime()).toBeGreaterThan(Date.now() - 60_000);
    const list = (await call('GET', `/api/blacklist/${accountId}`)).json();
    expect(list).toEqual([res.json()]);
  });

  it('treats every format of one number as the same entry and refuses the duplicate', async () => {
    for (const phone of ['5491112345678', '+5491112345678', '+54 11 1234-5678', '011 15-1234-5678', '(011) 15 1234 5678']) {
      const res = await call('POST', `/api/blacklist/${accountId}`, { phone });
      expect(res.statusCode, phone).toBe(409);
      expect(res.json().error).toBe('El número +5491112345678 ya está en la blacklist de esta cuenta');
    }
    // Each account keeps its own list.
    expect((await call('POST', `/api/blacklist/${secondAccountId}`, { phone: '5491112345678' })).statusCode).toBe(201);
  });

  it('folds the Mexican mobile 1 as WhatsApp does', async () => {
    const res = await call('POST', `/api/blacklist/${accountId}`, { phone: '+52 1 55 1234 5678', reason: null });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ phone: '+525512345678', reason: null });
    expect((await call('POST', `/api/blacklist/${accountId}`, { phone: '+52 55 1234 5678' })).statusCode).toBe(409);
  });

  it('validates the phone', async () => {
    for (const [payload, message] of [
      [{}, 'phone: El teléfono es requerido'],
      [{ phone: '   ' }, 'phone: El teléfono es requerido'],
      [{ phone: '123' }, 'Número de teléfono inválido'],
      [{ phone: 'n/a' }, 'Número de teléfono inválido'],
      [{ phone: '+5491112345678', extra: true }, ''],
      [{ phone: '+5491112345678', reason: 'x'.repeat(501) }, 'reason: El motivo es demasiado largo'],
    ] as const) {
      const res = await call('POST', `/api/blacklist/${accountId}`, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().error).toContain(message);
    }
  });

  it('checks a number in any format', async () => {
    let res = await call('GET', `/api/blacklist/${accountId}/check?phone=${encodeURIComponent('+54 9 11 1234 5678')}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ blacklisted: true, entry: { phone: '+5491112345678' } });
    res = await call('GET', `/api/blacklist/${accountId}/check?phone=5491155556666`);
    expect(res.json()).toEqual({ blacklisted: false, entry: null });
    expect((await call('GET', `/api/blacklist/${accountId}/check`)).statusCode).toBe(400);
    expect((await call('GET', `/api/blacklist/${accountId}/check?phone=abc`)).statusCode).toBe(400);
  });

  it('searches by phone digits in any format or by reason', async () => {
    const ids = (q: string) => call('GET', `/api/blacklist/${accountId}/search?query=${encodeURIComponent(q)}`).then((r) => r.json().map((e: { phone: string }) => e.phone));
    expect(await ids('11 1234')).toEqual(['+5491112345678']);
    expect((await ids('1234-5678')).length).toBe(2);
    expect(await ids('no recibir')).toEqual(['+5491112345678']);
    expect(await ids('+52')).toEqual(['+525512345678']);
    expect((await ids('')).length).toBe(2);
    expect(await ids('%')).toEqual([]);
  });

  it('gives the campaign sender the blocked keys', async () => {
    const keys = ['+5491112345678', '+525512345678', '+5491100000000'].map((p) => normalizePhoneKey(p)!);
    const blocked = await blacklistedKeys(t.ctx.db, userId, accountId, keys);
    expect([...blocked].sort()).toEqual([keys[0], keys[1]].sort());
    // The WhatsApp id form of the Argentine number (no 9) is the same key.
    expect(await blacklistedKeys(t.ctx.db, userId, accountId, [normalizePhoneKey('+541112345678')!])).toEqual(new Set([keys[0]]));
    expect(await blacklistedKeys(t.ctx.db, userId + 999, accountId, keys)).toEqual(new Set());
    expect(await blacklistedKeys(t.ctx.db, userId, accountId, [])).toEqual(new Set());
  });

  it('removes an entry', async () => {
    const [entry] = (await call('GET', `/api/blacklist/${accountId}/search?query=52`)).json();
    const res = await call('DELETE', `/api/blacklist/${accountId}/${entry.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true, message: 'Número removido de blacklist exitosamente' });
    expect((await call('DELETE', `/api/blacklist/${accountId}/${entry.id}`)).statusCode).toBe(404);
    // An entry of another account is not removed through this one.
    const [foreign] = (await call('GET', `/api/blacklist/${secondAccountId}`)).json();
    expect((await call('DELETE', `/api/blacklist/${accountId}/${foreign.id}`)).statusCode).toBe(404);
    expect((await call('DELETE', `/api/blacklist/${accountId}/abc`)).statusCode).toBe(400);
  });

  it("answers 404 for another user's account on every route", async () => {
    const [entry] = (await call('GET', `/api/blacklist/${accountId}`)).json();
    const calls: Array<['GET' | 'POST' | 'DELETE', string, unknown?]> = [
      ['GET', `/api/blacklist/${accountId}`],
      ['POST', `/api/blacklist/${accountId}`, { phone: '+5491155556666' }],
      ['DELETE', `/api/blacklist/${accountId}/${entry.id}`],
      ['GET', `/api/blacklist/${accountId}/search?query=5`],
      ['GET', `/api/blacklist/${accountId}/check?phone=5491112345678`],
    ];
    for (const [method, url, payload] of calls) {
      const res = await call(method, url, payload, other);
      expect(res.statusCode, url).toBe(404);
      expect(res.json().error).toBe('Cuenta Kommo no encontrada');
    }
    expect((await call('GET', `/api/blacklist/${accountId}`)).json()).toHaveLength(1);
  });
});
