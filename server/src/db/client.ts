import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { failSpan, SpanKind, startSpan, tracingOn, type Span } from '../lib/tracing';
import * as schema from './schema/index';
import { PGLITE_OWNER } from './sql';

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
/** The transaction `db.transaction` hands its callback; functions that run inside one take `Db | Tx`. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

export interface Database {
  db: Db;
  /**
   * Where reads that tolerate lag go (lists, counts, charts, exports): a second pool on the
   * read replica when `readUrl` was given, otherwise this same `db`, at no cost.
   */
  readDb: Db;
  kind: 'pglite' | 'postgres';
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** postgres://… ; unset means embedded PGlite. */
  url?: string;
  /**
   * PostgreSQL only: a read replica's postgres://… for `readDb` (DATABASE_READ_URL). Opened
   * with the same settings as the primary (search path, timeouts, pool size).
   */
  readUrl?: string;
  /** PGlite folder; unset with no url means in memory (tests). */
  dataDir?: string;
  /** PostgreSQL schema to use (tests isolate each file in its own schema). */
  searchPath?: string;
  poolSize?: number;
  /**
   * PostgreSQL: every statement is cancelled past this many milliseconds (0 = none). Work that
   * is long by nature (migrations, freezing a large audience) raises it for its own
   * transaction with `allowLongStatements`. PGlite cannot interrupt a statement (it has no
   * timer signal); there, user-triggerable queries are bounded by design instead
   * (docs/architecture/operations.md, "Bounded queries").
   */
  statementTimeoutMs?: number;
  /** PostgreSQL: how long to wait for a pooled connection before failing (0 = forever). */
  connectTimeoutMs?: number;
}

/** The statement timeout used for work that is long by nature, inside its own transaction. */
export const LONG_STATEMENT_TIMEOUT_MS = 10 * 60_000;

/**
 * Raises the statement timeout for the rest of the current transaction (`set local`), for work
 * whose size is the operator's data (freezing a million recipients, deleting a large campaign).
 */
export async function allowLongStatements(tx: Pick<Db, 'execute'>, ms = LONG_STATEMENT_TIMEOUT_MS): Promise<void> {
  await tx.execute(sql.raw(`set local statement_timeout = ${Math.max(0, Math.floor(ms))}`));
}

/** A replica without a primary PostgreSQL: refused at start rather than silently ignored. */
export const READ_URL_NEEDS_POSTGRES = 'DATABASE_READ_URL necesita DATABASE_URL: la réplica de lectura es de un PostgreSQL; la base embebida no tiene réplicas';

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  if (opts.readUrl && !opts.url) throw new Error(READ_URL_NEEDS_POSTGRES);
  if (!opts.url) return openPglite(opts);
  const primary = await openPostgres(opts);
  if (!opts.readUrl) return primary;
  const replica = await openPostgres({ ...opts, url: opts.readUrl });
  return {
    ...primary,
    readDb: replica.db,
    close: async () => {
      await Promise.all([primary.close(), replica.close()]);
    },
  };
}

async function openPglite(opts: DatabaseOptions): Promise<Database> {
  let dir: string | undefined;
  if (opts.dataDir) {
    dir = join(opts.dataDir, 'pgdata');
    mkdirSync(dir, { recursive: true });
  }
  // Loaded only here: the embedded database's code and WebAssembly are about 20 MB of memory a
  // PostgreSQL deployment never needs.
  const [{ PGlite }, { pg_trgm }, { drizzle: drizzlePglite }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('@electric-sql/pglite/contrib/pg_trgm'),
    import('drizzle-orm/pglite'),
  ]);
  const client = await PGlite.create(dir, { extensions: { pg_trgm } });
  // Statements prepared by `preparedRows` belong to the instance's one session; its transaction
  // objects are marked with the instance so a statement prepared in one is known in the next.
  const transaction = client.transaction.bind(client);
  client.transaction = (work) =>
    transaction((tx) => {
      Object.defineProperty(tx, PGLITE_OWNER, { value: client });
      return work(tx);
    });
  const db = drizzlePglite(client, { schema }) as unknown as Db;
  return {
    db,
    readDb: db,
    kind: 'pglite',
    close: () => client.close(),
  };
}

async function openPostgres(opts: DatabaseOptions): Promise<Database> {
  const settings = [
    opts.searchPath ? `-c search_path=${opts.searchPath},public` : '',
    opts.statementTimeoutMs ? `-c statement_timeout=${Math.floor(opts.statementTimeoutMs)}` : '',
    // A transaction left open by a bug must not hold its locks forever.
    opts.statementTimeoutMs ? `-c idle_in_transaction_session_timeout=${Math.max(60_000, Math.floor(opts.statementTimeoutMs) * 6)}` : '',
  ].filter(Boolean);
  const pool = new pg.Pool({
    connectionString: opts.url,
    max: opts.poolSize ?? 10,
    options: settings.length ? settings.join(' ') : undefined,
    connectionTimeoutMillis: opts.connectTimeoutMs ?? 0,
  });
  // A dropped idle connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  const target = dbTarget(opts.url!);
  pool.on('connect', (client) => traceQueries(client, target));
  const db = drizzlePg(pool, { schema }) as unknown as Db;
  return {
    db,
    readDb: db,
    kind: 'postgres',
    close: () => pool.end(),
  };
}

interface DbTarget {
  namespace: string;
  address: string;
  port: number;
}

function dbTarget(url: string): DbTarget {
  try {
    const u = new URL(url);
    return { namespace: decodeURIComponent(u.pathname.slice(1)) || 'postgres', address: u.hostname || 'localhost', port: Number(u.port) || 5432 };
  } catch {
    return { namespace: 'postgres', address: 'localhost', port: 5432 };
  }
}

type QueryArgs = [unknown, ...unknown[]];

/**
 * With tracing on (lib/tracing.ts), every query of a pooled connection is a client span: the
 * statement's text (parameters travel apart, so no value is in it), the database and server.
 * Off, the wrapper costs one call and one check per query. Streams (cursors) pass untraced.
 * The embedded PGlite is not traced: it is one process with no network between.
 */
function traceQueries(client: pg.PoolClient, target: DbTarget) {
  const query = client.query.bind(client) as (...args: QueryArgs) => unknown;
  (client as { query: unknown }).query = (...args: QueryArgs) => {
    if (!tracingOn()) return query(...args);
    const first = args[0] as string | { text?: string; submit?: unknown } | null;
    if (!first || (typeof first === 'object' && typeof first.submit === 'function')) return query(...args);
    const text = (typeof first === 'string' ? first : first.text ?? '').trim();
    const operation = /^[a-z]+/i.exec(text)?.[0]?.toUpperCase() ?? 'QUERY';
    const span = startSpan(operation, {
      kind: SpanKind.CLIENT,
      attributes: {
        'db.system': 'postgresql',
        'db.system.name': 'postgresql',
        'db.namespace': target.namespace,
        'db.operation.name': operation,
        'db.query.text': text.length > 4000 ? `${text.slice(0, 4000)}…` : text,
        'server.address': target.address,
        'server.port': target.port,
      },
    })!;
    const last = args[args.length - 1];
    if (typeof last === 'function') {
      args[args.length - 1] = (err: unknown, res: unknown) => {
        endQuerySpan(span, err);
        return (last as (e: unknown, r: unknown) => unknown)(err, res);
      };
      return query(...args);
    }
    try {
      return (query(...args) as Promise<unknown>).then(
        (res) => {
          span.end();
          return res;
        },
        (err: unknown) => {
          endQuerySpan(span, err);
          throw err;
        },
      );
    } catch (err) {
      endQuerySpan(span, err);
      throw err;
    }
  };
}

function endQuerySpan(span: Span, err: unknown) {
  if (err) {
    const code = (err as { code?: string }).code;
    if (code) span.setAttribute('db.response.status_code', code);
    failSpan(span, err, code);
  }
  span.end();
}

export { sql };
