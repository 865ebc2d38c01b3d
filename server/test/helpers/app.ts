import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { buildApp } from '../../src/app';
import { loadConfig, type Config } from '../../src/config';
import { createContext, type AppContext } from '../../src/context';
import { openDatabase, type Database } from '../../src/db/client';
import { migrate } from '../../src/db/migrate';
import { intArray, rowsOf } from '../../src/db/sql';
import type { Role, Scope } from '@masivo/contract/organizations';
import { sql } from 'drizzle-orm';

export interface TestApp {
  app: FastifyInstance;
  ctx: AppContext;
  /** Registers a fresh user and returns its bearer header. */
  signUp(email?: string): Promise<{ token: string; userId: number; headers: { authorization: string } }>;
  /**
   * A new user made a member of `orgId` with `role` (and scope), signed in acting there. The
   * membership is written directly, as an accepted invitation would.
   */
  addMember(
    orgId: number,
    role: Role,
    scope?: Partial<Scope>,
  ): Promise<{ token: string; userId: number; headers: { authorization: string } }>;
  close(): Promise<void>;
}

/**
 * A fresh database per test file: in-memory PGlite by default, or a private schema in
 * the PostgreSQL of TEST_DATABASE_URL, so the same suite runs on both engines. `readUrl` opens
 * `readDb` on another PostgreSQL login (a read-only role stands in for a replica) with the same
 * private schema; on PGlite it is refused, as DATABASE_READ_URL is without DATABASE_URL.
 */
export async function openTestDatabase(opts: { readUrl?: string } = {}): Promise<{ database: Database; drop(): Promise<void> }> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) {
    const database = await openDatabase({ readUrl: opts.readUrl });
    return { database, drop: () => database.close() };
  }
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query('create extension if not exists pg_trgm');
  await admin.query(`create schema ${schema}`);
  const database = await openDatabase({ url, readUrl: opts.readUrl, searchPath: schema, poolSize: 5, statementTimeoutMs: 10_000, connectTimeoutMs: 5_000 });
  return {
    database,
    async drop() {
      await database.close();
      await admin.query(`drop schema ${schema} cascade`);
      await admin.end();
    },
  };
}

export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({
    APP_SECRET: 'test-secret-test-secret-test-secret',
    DATA_DIR: '/tmp/masivo-test-data',
    LOG_LEVEL: 'silent',
    WHATSAPP_APP_SECRET: 'test-whatsapp-app-secret',
    // Test files sign many users up from one address.
    REGISTER_RATE_LIMIT: '100000',
    ...overrides,
  });
}

/** `overrides.DATABASE_READ_URL` gives the app a `readDb` of its own (see openTestDatabase). */
export async function createTestApp(overrides: Record<string, string> = {}): Promise<TestApp> {
  const { database, drop } = await openTestDatabase({ readUrl: overrides.DATABASE_READ_URL });
  await migrate(database);
  const ctx = createContext(testConfig(overrides), database);
  const app = await buildApp(ctx);
  await app.ready();
  let n = 0;
  const api: TestApp = {
    app,
    ctx,
    async signUp(email = `user${++n}-${randomBytes(3).toString('hex')}@example.com`) {
      const res = await app.inject({
        method: 'POST',
        url: '/api/auth/register',
        payload: { first_name: 'Ana', last_name: 'Pérez', email, password: 'secreto123' },
      });
      if (res.statusCode !== 201) throw new Error(`sign-up failed: ${res.statusCode} ${res.body}`);
      const { token, user } = res.json();
      return { token, userId: user.id, headers: { authorization: `Bearer ${token}` } };
    },
    async addMember(orgId, role, scope = {}) {
      const user = await api.signUp();
      await rowsOf(
        database.db,
        sql`insert into organization_members (organization_id, user_id, role, scope_whatsapp_account_ids, scope_kommo_account_ids)
            values (${orgId}, ${user.userId}, ${role}, ${intArray(scope.whatsapp_account_ids ?? [])}, ${intArray(scope.kommo_account_ids ?? [])})`,
      );
      const res = await app.inject({ method: 'POST', url: `/api/organizations/${orgId}/switch`, headers: user.headers });
      if (res.statusCode !== 200) throw new Error(`switch failed: ${res.statusCode} ${res.body}`);
      const token: string = res.json().token;
      return { token, userId: user.userId, headers: { authorization: `Bearer ${token}` } };
    },
    async close() {
      await app.close();
      await drop();
    },
  };
  return api;
}
