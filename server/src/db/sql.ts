import { sql, type SQL } from 'drizzle-orm';
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
 * Many rows as ONE bound parameter: drizzle expands JS arrays into tuples, so batches travel
 * as a JSON document that `jsonb_to_recordset` turns back into a table.
 */
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
