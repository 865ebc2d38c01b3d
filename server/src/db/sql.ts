import { createHash } from 'node:crypto';
import { sql, type SQL } from 'drizzle-orm';
import pg from 'pg';
import type { Db } from './client';

/**
 * The raw-SQL toolkit: hot paths write drizzle's `sql` template and read rows through here,
 * so every layer (engine, services, routes, tests, benches) shares one way to do it instead of
 * casting driver results in place.
 */

/** Anything that runs a statement: the database or a transaction inside it. */
export type Queryable = Pick<Db, 'execute'>;

/**
 * Raw SQL rows for both drivers (node-postgres and PGlite answer with `{ rows }`). Named
 * `rowsOf` rather than `rows` because callers keep the natural `const rows = …` for the result.
 */
export async function rowsOf<T = Record<string, unknown>>(db: Queryable, query: SQL): Promise<T[]> {
  const res = (await db.execute(query)) as unknown as { rows: T[] };
  return res.rows;
}

/**
 * `rowsOf` for the hot path's statements, planned once per connection instead of once per call.
 * Their plans cost more than their execution (2 ms to plan against 0.6 ms to run a batch of
 * delivery facts on the embedded database), and they run many times a second. Each distinct
 * text gets a name from its hash: on PostgreSQL a named statement of node-postgres (parsed once
 * per pooled connection), on PGlite an SQL `PREPARE` once per database and an `EXECUTE` with the
 * values as quoted literals (PGlite's API has no named statements). After five runs PostgreSQL
 * keeps the generic plan when it costs no more than the custom ones. Only for statements whose
 * best plan does not depend on the values: batches passed as one JSON parameter, lookups by key.
 */
export async function preparedRows<T = Record<string, unknown>>(db: Queryable, query: SQL): Promise<T[]> {
  const { dialect, session } = db as unknown as DrizzleInternals;
  const { sql: text, params } = dialect.sqlToQuery(query);
  const name = `k_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
  const client = session.client;
  if (client instanceof pg.Pool || client instanceof pg.Client) {
    const res = (await session.prepareQuery({ sql: text, params }, undefined, name, false).execute()) as { rows: T[] };
    return res.rows;
  }
  const literals = params.map(literalOf);
  if (literals.includes(undefined)) return rowsOf<T>(db, query);
  const pglite = client as PgliteClient;
  const owner = pglite[PGLITE_OWNER] ?? pglite;
  let prepared = preparedOnPglite.get(owner);
  if (!prepared) preparedOnPglite.set(owner, (prepared = new Map()));
  const state = prepared.get(name);
  // Being prepared by another caller: run unprepared this once rather than wait for it (it may
  // be queued behind the very transaction this call runs in).
  if (state === 'pending') return rowsOf<T>(db, query);
  if (state === undefined) {
    prepared.set(name, 'pending');
    try {
      await pglite.query(`prepare ${name} as ${text}`);
      prepared.set(name, 'ready');
    } catch (err) {
      prepared.delete(name);
      throw err;
    }
  }
  const res = await pglite.query<T>(literals.length ? `execute ${name}(${literals.join(', ')})` : `execute ${name}`);
  return res.rows;
}

/** What `preparedRows` reaches inside drizzle's database and transaction objects. */
interface DrizzleInternals {
  dialect: { sqlToQuery(query: SQL): { sql: string; params: unknown[] } };
  session: {
    client: unknown;
    prepareQuery(query: { sql: string; params: unknown[] }, fields: undefined, name: string, arrayMode: boolean): { execute(): Promise<unknown> };
  };
}

/** PGlite's client or one of its transactions (marked with the instance it belongs to in client.ts). */
interface PgliteClient {
  query<T>(text: string): Promise<{ rows: T[] }>;
  [PGLITE_OWNER]?: object;
}

/** Set by client.ts on each PGlite transaction object: the instance whose session holds the statements. */
export const PGLITE_OWNER = Symbol('pgliteOwner');
const preparedOnPglite = new WeakMap<object, Map<string, 'pending' | 'ready'>>();

/**
 * A bound value as an SQL literal of unknown type (the prepared statement's parameter types
 * apply): an escape string with its backslashes and quotes doubled. Undefined for
 * values this does not render (the statement then runs unprepared).
 */
function literalOf(value: unknown): string | undefined {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number') return Number.isFinite(value) ? `'${value}'` : undefined;
  if (typeof value === 'bigint' || typeof value === 'boolean') return `'${value}'`;
  if (value instanceof Date) return `'${value.toISOString()}'`;
  // An escape string behaves the same whatever standard_conforming_strings says.
  if (typeof value === 'string') return value.includes('\0') ? undefined : `E'${value.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
  return undefined;
}

/**
 * Filter queries scan many rows but are cheap per row: PostgreSQL's JIT (on by default above a
 * cost threshold) spends more compiling them than it saves — about 60 ms per count on a
 * million contacts. It is switched off for the statements `work` runs, and only for them.
 */
export function withoutJit<T>(db: Db, work: (tx: Queryable) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`set local jit = off`);
    return work(tx);
  });
}

/**
 * Runs `work` with nested loops off, for set-based statements over rows without statistics
 * (just written, or on the embedded database, which never analyzes by itself): the planner
 * would otherwise loop over one side for every row of the other. JIT goes off with them: the
 * planner prices a disabled plan node at 10^10, so every such plan looks costly enough to be
 * compiled — 1.3 s of compilation for a freeze that runs in 0.1 s. Both settings are local to the
 * caller's transaction and restored when `work` succeeds (a failed one aborts the transaction).
 */
export async function withHashJoins<T>(db: Queryable, work: () => Promise<T>): Promise<T> {
  const [before] = await rowsOf<{ nestloop: string; jit: string }>(
    db,
    sql`select current_setting('enable_nestloop') as nestloop, current_setting('jit') as jit,
          set_config('enable_nestloop', 'off', true), set_config('jit', 'off', true)`,
  );
  const result = await work();
  await db.execute(sql`select set_config('enable_nestloop', ${before.nestloop}, true), set_config('jit', ${before.jit}, true)`);
  return result;
}

/**
 * Many rows as ONE bound parameter: drizzle expands JS arrays into tuples, so batches travel
 * as a JSON document that `jsonb_to_recordset` turns back into a table.
 */
/** Integer ids as one array parameter (drizzle would expand a JS array into a list). */
export function intArray(ids: readonly number[]): SQL {
  return sql`${`{${ids.map((id) => Math.trunc(Number(id))).join(',')}}`}::int[]`;
}

export const jsonParam = (value: unknown): SQL => sql`${JSON.stringify(value)}::jsonb`;

/** A timestamptz rendered as an ISO-8601 UTC string, the same on every driver. */
export const isoOf = (column: SQL): SQL =>
  sql`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** PostgreSQL aborts one side of a deadlock or a serialization conflict; the statement can simply run again. */
const RETRYABLE = new Set(['40P01', '40001']);

export async function retryOnConflict<T>(work: () => Promise<T>, attempts = 5): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await work();
    } catch (err) {
      if (i >= attempts || !RETRYABLE.has(pgCode(err) ?? '')) throw err;
      await new Promise((resolve) => setTimeout(resolve, 5 * i + Math.random() * 20));
    }
  }
}

/** drizzle wraps driver errors; the SQLSTATE sits on the error or its cause. */
export function pgCode(err: unknown): string | undefined {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | undefined;
  const code = e?.code ?? e?.cause?.code;
  return typeof code === 'string' ? code : undefined;
}
