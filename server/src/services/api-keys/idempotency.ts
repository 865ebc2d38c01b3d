import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { preparedRows, rowsOf } from '../../db/sql';

/** How long an answer is kept for retries with the same key. */
export const IDEMPOTENCY_TTL_HOURS = 24;
/** A call still running after this long is taken as lost (its process died) and may run again. */
export const IDEMPOTENCY_ABANDONED_MS = 5 * 60_000;

export type IdempotencyStart =
  | { kind: 'new' }
  | { kind: 'replay'; statusCode: number; contentType: string; body: string }
  | { kind: 'mismatch' }
  | { kind: 'in_progress' };

interface Row {
  request_hash: string;
  status_code: number | null;
  content_type: string | null;
  body: string | null;
  age_ms: number;
}

/** The request's fingerprint: its method, route, path parameters and parsed body. */
export function requestHash(method: string, route: string, params: unknown, body: unknown): string {
  return createHash('sha256').update(JSON.stringify([method, route, params ?? null, body ?? null])).digest('hex');
}

/**
 * `Idempotency-Key` for the public API's POSTs, per API key. The first call with a key claims
 * it (a row without an answer) before it acts; its answer is stored when it ends. A retry with
 * the same body gets that answer again; with another body, a mismatch. A retry that arrives
 * while the first call still runs waits for its answer, so two concurrent calls act once.
 */
export function createIdempotencyStore(db: Db, opts: { waitMs?: number; pollMs?: number } = {}) {
  const waitMs = opts.waitMs ?? 10_000;
  const pollMs = opts.pollMs ?? 50;

  const claim = async (apiKeyId: number, key: string, hash: string) =>
    (
      await preparedRows<{ ok: number }>(
        db,
        sql`insert into api_idempotency_keys (api_key_id, key, request_hash) values (${apiKeyId}, ${key}, ${hash})
            on conflict (api_key_id, key) do nothing returning 1 as ok`,
      )
    ).length > 0;

  const read = async (apiKeyId: number, key: string) =>
    (
      await preparedRows<Row>(
        db,
        sql`select request_hash, status_code, content_type, body,
                   (extract(epoch from (now() - created_at)) * 1000)::float8 as age_ms
              from api_idempotency_keys where api_key_id = ${apiKeyId} and key = ${key}`,
      )
    )[0];

  /** Takes over a row past its life (24 h, or a call lost mid-way): true when this call now owns it. */
  const takeOver = async (apiKeyId: number, key: string, hash: string) =>
    (
      await rowsOf(
        db,
        sql`update api_idempotency_keys set request_hash = ${hash}, status_code = null, content_type = null, body = null, created_at = now()
            where api_key_id = ${apiKeyId} and key = ${key}
              and (created_at < now() - make_interval(hours => ${IDEMPOTENCY_TTL_HOURS})
                   or (status_code is null and created_at < now() - make_interval(secs => ${IDEMPOTENCY_ABANDONED_MS / 1000})))
            returning 1`,
      )
    ).length > 0;

  return {
    async start(apiKeyId: number, key: string, hash: string): Promise<IdempotencyStart> {
      if (await claim(apiKeyId, key, hash)) return { kind: 'new' };
      const deadline = Date.now() + waitMs;
      for (;;) {
        const row = await read(apiKeyId, key);
        if (!row) {
          if (await claim(apiKeyId, key, hash)) return { kind: 'new' };
          continue;
        }
        const expired = row.age_ms > IDEMPOTENCY_TTL_HOURS * 3600_000;
        const lost = row.status_code === null && row.age_ms > IDEMPOTENCY_ABANDONED_MS;
        if ((expired || lost) && (await takeOver(apiKeyId, key, hash))) return { kind: 'new' };
        if (row.request_hash !== hash) return { kind: 'mismatch' };
        if (row.status_code !== null) {
          return { kind: 'replay', statusCode: Number(row.status_code), contentType: row.content_type ?? 'application/json', body: row.body ?? '' };
        }
        if (Date.now() >= deadline) return { kind: 'in_progress' };
        await new Promise((resolve) => setTimeout(resolve, pollMs));
      }
    },

    /** Keeps the answer for retries. */
    async finish(apiKeyId: number, key: string, statusCode: number, contentType: string, body: string): Promise<void> {
      await rowsOf(
        db,
        sql`update api_idempotency_keys set status_code = ${statusCode}, content_type = ${contentType}, body = ${body}
            where api_key_id = ${apiKeyId} and key = ${key} and status_code is null`,
      );
    },

    /** A call that failed on our side (5xx) or was cut off: the key is free for a retry. */
    async release(apiKeyId: number, key: string): Promise<void> {
      await rowsOf(db, sql`delete from api_idempotency_keys where api_key_id = ${apiKeyId} and key = ${key} and status_code is null`);
    },
  };
}

export type IdempotencyStore = ReturnType<typeof createIdempotencyStore>;

/** Answers older than their life are removed (the job runner's housekeeping). */
export async function pruneIdempotencyKeys(db: Db): Promise<number> {
  const rows = await rowsOf(
    db,
    sql`delete from api_idempotency_keys where created_at < now() - make_interval(hours => ${IDEMPOTENCY_TTL_HOURS}) returning 1`,
  );
  return rows.length;
}
