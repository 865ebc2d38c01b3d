import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/db/sql';
import { createTestApp, type TestApp } from './helpers/app';

/**
 * Sessions: «Cerrar Sesión» ends the session it is sent from and no other; «Cerrar sesión en
 * todos los dispositivos» and a password change end every session of the user.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t?.close());

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const me = async (token: string) => (await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(token) })).statusCode;
const post = (url: string, token: string, payload?: object) => t.app.inject({ method: 'POST', url, headers: bearer(token), ...(payload ? { payload } : {}) });
/** A sign-in from another device: a new token for the same account. */
async function signIn(email: string, password = 'secreto123'): Promise<string> {
  const res = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().token;
}

describe('sessions', () => {
  it('gives every sign-in its own token, even two in the same second', async () => {
    const { token } = await t.signUp('dos@example.com');
    const [a, b] = await Promise.all([signIn('dos@example.com'), signIn('dos@example.com')]);
    expect(new Set([token, a, b]).size).toBe(3);
  });

  it('«Cerrar Sesión» ends the session it is sent from, and the other devices stay signed in', async () => {
    const { token: laptop } = await t.signUp('uno@example.com');
    const phone = await signIn('uno@example.com');
    const tablet = await signIn('uno@example.com');

    const out = await post('/api/auth/logout', laptop);
    expect(out.statusCode).toBe(200);
    expect(out.json()).toEqual({ success: true, message: 'Sesión cerrada' });

    expect(await me(laptop)).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: '/api/campaigns', headers: bearer(laptop) })).statusCode).toBe(401);
    expect(await me(phone)).toBe(200);
    expect(await me(tablet)).toBe(200);
    // A signed-out token cannot sign out again, nor sign the others out.
    expect((await post('/api/auth/logout', laptop)).statusCode).toBe(401);
    expect((await post('/api/auth/logout-all', laptop)).statusCode).toBe(401);
    expect(await me(phone)).toBe(200);

    expect((await post('/api/auth/logout', phone)).statusCode).toBe(200);
    expect(await me(phone)).toBe(401);
    expect(await me(tablet)).toBe(200);
    // Signing in again after signing out works as before.
    expect(await me(await signIn('uno@example.com'))).toBe(200);
  });

  it('«Cerrar sesión en todos los dispositivos» ends every session, the one it is sent from too', async () => {
    const { token: laptop, userId } = await t.signUp('todos@example.com');
    const phone = await signIn('todos@example.com');
    const tablet = await signIn('todos@example.com');
    expect((await post('/api/auth/logout', tablet)).statusCode).toBe(200);

    const out = await post('/api/auth/logout-all', phone);
    expect(out.statusCode).toBe(200);
    expect(out.json()).toEqual({ success: true, message: 'Sesión cerrada en todos los dispositivos' });
    for (const token of [laptop, phone, tablet]) expect(await me(token)).toBe(401);
    // The version bump covers the one-by-one entries, so they are gone.
    expect(await rowsOf(t.ctx.db, sql`select 1 from revoked_sessions where user_id = ${userId}`)).toEqual([]);

    const again = await signIn('todos@example.com');
    expect(await me(again)).toBe(200);
  });

  it('a password change ends every session and answers with a new one', async () => {
    const { token: laptop } = await t.signUp('clave@example.com');
    const phone = await signIn('clave@example.com');
    const change = await post('/api/auth/password', laptop, { current_password: 'secreto123', new_password: 'otraclave9' });
    expect(change.statusCode, change.body).toBe(200);
    expect(await me(laptop)).toBe(401);
    expect(await me(phone)).toBe(401);
    expect(await me(change.json().token)).toBe(200);
  });

  it('keeps a signed-out token by hash only, until it would expire, and prunes entries past expiry', async () => {
    const { token, userId } = await t.signUp('poda@example.com');
    const { userId: otherId } = await t.signUp();
    // An entry whose token expired yesterday: it protects nothing any more.
    await t.ctx.db.execute(sql`insert into revoked_sessions (token_hash, user_id, expires_at) values ('viejo', ${otherId}, now() - interval '1 day')`);

    expect((await post('/api/auth/logout', token)).statusCode).toBe(200);

    const rows = await rowsOf<{ token_hash: string; user_id: number; expires_at: string }>(
      t.ctx.db,
      sql`select token_hash, user_id, expires_at::text from revoked_sessions where user_id in (${userId}, ${otherId})`,
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.token_hash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(Number(rows[0]!.user_id)).toBe(userId);
    const exp = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).exp as number;
    expect(new Date(rows[0]!.expires_at).getTime()).toBe(exp * 1000);
  });

  it('forgets the signed-out tokens of a deleted account with it', async () => {
    const { token, userId } = await t.signUp();
    expect((await post('/api/auth/logout', token)).statusCode).toBe(200);
    await t.ctx.db.execute(sql`delete from users where id = ${userId}`);
    expect(await rowsOf(t.ctx.db, sql`select 1 from revoked_sessions where user_id = ${userId}`)).toEqual([]);
  });
});
