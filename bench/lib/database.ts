/**
 * The database set-up every bench shares: a PostgreSQL database of its own for the run
 * (created, migrated, dropped after it unless kept), or the embedded PGlite, in memory or in a
 * temporary data directory.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openDatabase, type Database } from '../../server/src/db/client';
import { migrate } from '../../server/src/db/migrate';

/** The server the scratch databases are created on (`BENCH_PG_URL` is the older name). */
export const PG_ADMIN_URL = process.env.BENCH_DATABASE_URL ?? process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface ScratchPostgres {
  name: string;
  url: string;
  /** The database was there already (a kept one, reused). */
  existed: boolean;
  /** Drops the database (unless it is kept) and closes the admin connection. */
  drop(): Promise<void>;
}

/**
 * A PostgreSQL database for one run, named `{prefix}_{random}`, or `keep` (a plain name: created
 * if missing, reused if there, never dropped).
 */
export async function scratchPostgres(prefix: string, opts: { keep?: string } = {}): Promise<ScratchPostgres> {
  if (opts.keep && !/^[a-z_][a-z0-9_]*$/.test(opts.keep)) throw new Error('a kept database needs a plain name ([a-z_][a-z0-9_]*)');
  const name = opts.keep ?? `${prefix}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  const existed = (await admin.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1;
  if (!existed) await admin.query(`create database ${name}`);
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    existed,
    async drop() {
      try {
        if (!opts.keep) await admin.query(`drop database if exists ${name} with (force)`);
      } finally {
        await admin.end();
      }
    },
  };
}

export interface BenchDatabase {
  database: Database;
  kind: 'postgres' | 'pglite';
  /** PostgreSQL only: the database's URL (for child processes) and name. */
  url?: string;
  name?: string;
  /** A temporary directory for the run (the console's DATA_DIR; PGlite's files when `onDisk`). */
  dataDir: string;
  /** PostgreSQL only: the kept database was there already. */
  existed: boolean;
  /** Migrations applied by this open (all of them on a new database). */
  applied: string[];
  /** Closes the database, drops it (unless kept) and removes the data directory. */
  close(): Promise<void>;
}

export interface BenchDatabaseOptions {
  /** PostgreSQL: connections in the pool (default 4). */
  poolSize?: number;
  /** PostgreSQL: keep the database under this name (see scratchPostgres). */
  keep?: string;
  /** PGlite: in the data directory instead of in memory. */
  onDisk?: boolean;
  /** Apply the migrations (default true). */
  migrate?: boolean;
}

/** A migrated database for one run: PostgreSQL named after `prefix`, or PGlite. */
export async function openBenchDatabase(kind: 'postgres' | 'pglite', prefix: string, opts: BenchDatabaseOptions = {}): Promise<BenchDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), `${prefix.replace(/_/g, '-')}-`));
  const scratch = kind === 'postgres' ? await scratchPostgres(prefix, { keep: opts.keep }) : undefined;
  const database = scratch
    ? await openDatabase({ url: scratch.url, poolSize: opts.poolSize ?? 4 })
    : await openDatabase(opts.onDisk ? { dataDir } : {});
  const applied = opts.migrate === false ? [] : await migrate(database);
  return {
    database,
    kind,
    url: scratch?.url,
    name: scratch?.name,
    dataDir,
    existed: scratch?.existed ?? false,
    applied,
    async close() {
      try {
        await database.close();
      } finally {
        await scratch?.drop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
}
