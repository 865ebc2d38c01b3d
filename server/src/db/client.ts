import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { sql, type SQL } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import * as schema from './schema/index';

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

export interface Database {
  db: Db;
  kind: 'pglite' | 'postgres';
  /** Runs raw SQL and returns its rows; hot paths use this with drizzle's `sql` template. */
  rows<T = Record<string, unknown>>(query: SQL): Promise<T[]>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** postgres://… ; unset means embedded PGlite. */
  url?: string;
  /** PGlite folder; unset with no url means in memory (tests). */
  dataDir?: string;
  /** PostgreSQL schema to use (tests isolate each file in its own schema). */
  searchPath?: string;
  poolSize?: number;
}

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  if (opts.url) return openPostgres(opts);
  return openPglite(opts);
}

async function openPglite(opts: DatabaseOptions): Promise<Database> {
  let dir: string | undefined;
  if (opts.dataDir) {
    dir = join(opts.dataDir, 'pgdata');
    mkdirSync(dir, { recursive: true });
  }
  const client = await PGlite.create(dir, { extensions: { pg_trgm } });
  const db = drizzlePglite(client, { schema }) as unknown as Db;
  return {
    db,
    kind: 'pglite',
    async rows(query) {
      const res = (await db.execute(query)) as unknown as { rows: never[] };
      return res.rows;
    },
    close: () => client.close(),
  };
}

async function openPostgres(opts: DatabaseOptions): Promise<Database> {
  const pool = new pg.Pool({
    connectionString: opts.url,
    max: opts.poolSize ?? 10,
    options: opts.searchPath ? `-c search_path=${opts.searchPath},public` : undefined,
  });
  // A dropped idle connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  const db = drizzlePg(pool, { schema }) as unknown as Db;
  return {
    db,
    kind: 'postgres',
    async rows(query) {
      const res = (await db.execute(query)) as unknown as { rows: never[] };
      return res.rows;
    },
    close: () => pool.end(),
  };
}

export { sql };
