import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client';

/** Raw SQL rows for both drivers (node-postgres and PGlite answer with `{ rows }`). */
export async function rowsOf<T>(db: Db, query: SQL): Promise<T[]> {
  const res = (await db.execute(query)) as unknown as { rows: T[] };
  return res.rows;
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
