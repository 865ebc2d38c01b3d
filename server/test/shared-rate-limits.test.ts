import type { FastifyInstance } from 'fastify';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app';
import { createContext } from '../src/context';
import { openDatabase, type Database } from '../src/db/client';
import { migrate } from '../src/db/migrate';
import { createRateCounter } from '../src/db/rate-counters';
import { rowsOf } from '../src/db/sql';
import { openTestDatabase, testConfig } from './helpers/app';

/**
 * Two API instances on one database, as two processes of a deployment: on PostgreSQL each has
 * its own connection pool on the same schema; on the embedded database they share its one
 * connection. Either way nothing of the limits lives in an instance.
 */
let database: Database;
let second: Database;
let drop: () => Promise<void>;
let a: FastifyInstance;
let b: FastifyInstance;

beforeAll(async () => {
  ({ database, drop } = await openTestDatabase());
  await migrate(database);
  const url = process.env.TEST_DATABASE_URL;
  if (url) {
    const [{ schema }] = await rowsOf<{ schema: string }>(database.db, sql`select current_schema() as schema`);
    second = await openDatabase({ url, searchPath: schema, poolSize: 3 });
  } else {
    second = database;
  }
  const config = testConfig({ REGISTER_RATE_LIMIT: '3' });
  a = await buildApp(createContext(config, database));
  b = await buildApp(createContext(config, second));
  await Promise.all([a.ready(), b.ready()]);
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  if (second && second !== database) await second.close();
  await drop();
});

const register = (app: FastifyInstance, email: string, ip: string) =>
  app.inject({ method: 'POST', url: '/api/auth/register', remoteAddress: ip, payload: { email, password: 'secreto123', first_name: 'Ana', last_name: 'Pérez' } });
const login = (app: FastifyInstance, email: string, password: string, ip: string) =>
  app.inject({ method: 'POST', url: '/api/auth/login', remoteAddress: ip, payload: { email, password } });

describe('limits shared by every API process', () => {
  it('two instances together allow the sign-up limit once, not twice', async () => {
    const codes: number[] = [];
    for (let i = 0; i < 6; i++) codes.push((await register(i % 2 ? b : a, `alta${i}@example.com`, '10.20.0.1')).statusCode);
    expect(codes).toEqual([201, 201, 201, 429, 429, 429]);
    const refused = await register(b, 'otra@example.com', '10.20.0.1');
    expect(refused.json().error).toBe('Demasiados registros desde esta dirección. Intenta de nuevo más tarde.');
    // Another address is not affected.
    expect((await register(b, 'otra@example.com', '10.20.0.2')).statusCode).toBe(201);
  });

  it('failed sign-ins on either instance add up to one throttle', async () => {
    expect((await register(a, 'duena@example.com', '10.21.0.1')).statusCode).toBe(201);
    const codes: number[] = [];
    for (let i = 0; i < 5; i++) codes.push((await login(i % 2 ? b : a, 'duena@example.com', 'malaclave', '10.21.0.9')).statusCode);
    expect(codes).toEqual([401, 401, 401, 401, 401]);
    // Five failures in all (three on a, two on b): both refuse now, even the right password.
    for (const app of [a, b]) {
      const res = await login(app, 'duena@example.com', 'secreto123', '10.21.0.9');
      expect(res.statusCode).toBe(429);
      expect(res.json().error).toBe('Demasiados intentos de inicio de sesión. Intenta de nuevo en unos minutos.');
    }
    // The owner from another address signs in on either.
    expect((await login(b, 'duena@example.com', 'secreto123', '10.21.0.10')).statusCode).toBe(200);
  });

  it('a success on one instance clears the pair for the other', async () => {
    expect((await register(a, 'clara@example.com', '10.22.0.1')).statusCode).toBe(201);
    for (let i = 0; i < 4; i++) expect((await login(a, 'clara@example.com', 'malaclave', '10.22.0.5')).statusCode).toBe(401);
    expect((await login(b, 'clara@example.com', 'secreto123', '10.22.0.5')).statusCode).toBe(200);
    for (let i = 0; i < 4; i++) expect((await login(a, 'clara@example.com', 'malaclave', '10.22.0.5')).statusCode).toBe(401);
    expect((await login(b, 'clara@example.com', 'secreto123', '10.22.0.5')).statusCode).toBe(200);
  });

  it('stores no address or e-mail in clear', async () => {
    const rows = await rowsOf<{ key: string }>(database.db, sql`select key from rate_counters`);
    expect(rows.length).toBeGreaterThan(0);
    for (const { key } of rows) {
      expect(key).toMatch(/^(signup|login-ip|login-pair):[\w-]{32}$/);
      expect(key).not.toMatch(/10\.2|@/);
    }
  });

  it('counts in a sliding window and removes keys whose window is over as new ones arrive', async () => {
    const short = createRateCounter(database.db, { name: 'prueba', limit: 2, windowMs: 150 });
    expect([await short.take('x'), await short.take('x'), await short.take('x')]).toEqual([true, true, false]);
    for (let i = 0; i < 20; i++) await short.hit(`viejo${i}`);
    await new Promise((r) => setTimeout(r, 250));
    expect(await short.take('x')).toBe(true); // the window moved on
    const fresh = createRateCounter(database.db, { name: 'nueva', limit: 2, windowMs: 60_000 });
    for (let i = 0; i < 12; i++) await fresh.hit(`k${i}`);
    const [{ n }] = await rowsOf<{ n: number }>(database.db, sql`select count(*)::int as n from rate_counters where key like 'prueba:%'`);
    expect(n).toBeLessThanOrEqual(1); // of the 21, only 'x' may still be in its window
  });

  it('an API key’s rate limit holds across both instances (429 with Retry-After after the limit, on either)', async () => {
    const owner = await register(a, 'clave@example.com', '10.20.9.9');
    const headers = { authorization: `Bearer ${owner.json().token}` };
    const created = await a.inject({ method: 'POST', url: '/api/api-keys', headers, payload: { name: 'Compartida', scopes: ['campaigns:read'], rate_limit_per_minute: 4 } });
    expect(created.statusCode, created.body).toBe(201);
    const key = { authorization: `Bearer ${created.json().key}` };
    const codes: number[] = [];
    for (let i = 0; i < 6; i++) codes.push((await (i % 2 ? b : a).inject({ method: 'GET', url: '/api/v1/campaigns', headers: key })).statusCode);
    expect(codes).toEqual([200, 200, 200, 200, 429, 429]);
    const limited = await b.inject({ method: 'GET', url: '/api/v1/campaigns', headers: key });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
  });
});
