// Security review H3: every statement has a timeout on PostgreSQL, waiting for a pooled
// connection is bounded, and work that is long by nature raises the timeout for itself only.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config';
import { allowLongStatements, openDatabase, type Database } from '../src/db/client';
import { rowsOf } from '../src/db/sql';

const url = process.env.TEST_DATABASE_URL;

describe('configuration', () => {
  it('defaults to a 10 s statement timeout and a 5 s connection timeout, both configurable', () => {
    const base = { APP_SECRET: 'x'.repeat(40), DATA_DIR: '/tmp/masivo-test-data' };
    expect(loadConfig(base)).toMatchObject({ DB_STATEMENT_TIMEOUT_MS: 10_000, DB_CONNECT_TIMEOUT_MS: 5_000 });
    expect(loadConfig({ ...base, DB_STATEMENT_TIMEOUT_MS: '2500', DB_CONNECT_TIMEOUT_MS: '800' })).toMatchObject({
      DB_STATEMENT_TIMEOUT_MS: 2_500,
      DB_CONNECT_TIMEOUT_MS: 800,
    });
    expect(() => loadConfig({ ...base, DB_STATEMENT_TIMEOUT_MS: 'mucho' })).toThrow(/DB_STATEMENT_TIMEOUT_MS/);
  });
});

describe.runIf(url)('on PostgreSQL', () => {
  let database: Database;
  beforeAll(async () => {
    database = await openDatabase({ url, poolSize: 1, statementTimeoutMs: 300, connectTimeoutMs: 300 });
  });
  afterAll(async () => {
    await database?.close();
  });

  it('cancels a statement past the timeout (SQLSTATE 57014) and keeps serving', async () => {
    const started = performance.now();
    const err = await rowsOf(database.db, sql`select pg_sleep(3)`).catch((e: unknown) => e);
    const code = (err as { code?: string; cause?: { code?: string } }).cause?.code ?? (err as { code?: string }).code;
    expect(code).toBe('57014');
    expect(performance.now() - started).toBeLessThan(2_500);
    expect(await rowsOf(database.db, sql`select 1 as one`)).toEqual([{ one: 1 }]);
  });

  it('lets a transaction that asks for it run longer, and only that transaction', async () => {
    await database.db.transaction(async (tx) => {
      await allowLongStatements(tx, 5_000);
      await tx.execute(sql`select pg_sleep(0.6)`);
    });
    const err = await rowsOf(database.db, sql`select pg_sleep(0.6)`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
  });

  it('fails a request that waits too long for a pooled connection instead of queueing forever', async () => {
    let release!: () => void;
    const held = database.db.transaction(async (tx) => {
      await tx.execute(sql`select 1`);
      await new Promise<void>((r) => (release = r));
    });
    await new Promise((r) => setTimeout(r, 50));
    try {
      const started = performance.now();
      const err = (await rowsOf(database.db, sql`select 1`).catch((e: unknown) => e)) as Error & { cause?: Error };
      expect(String(err?.cause?.message ?? err?.message)).toMatch(/timeout/i);
      expect(performance.now() - started).toBeLessThan(2_000);
    } finally {
      release();
      await held;
    }
  });
});
