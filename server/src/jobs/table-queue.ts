import { sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db, Tx } from '../db/client';
import { rowsOf, type Queryable } from '../db/sql';
import type { ClaimedJob, JobStore } from './runner';

/**
 * A queue whose jobs are rows of the generic `jobs` table, with a zod-typed payload: what is
 * enqueued is parsed before it is written, and what is claimed is parsed again before it runs
 * (a row that no longer parses fails at once with the reason instead of running).
 */
export interface TableQueue<P> {
  name: string;
  payload: z.ZodType<P>;
  /** Concurrency key: at most one running job per key across processes (null: no limit). */
  key?: (payload: P) => string | null;
}

export function defineQueue<P>(name: string, payload: z.ZodType<P>, key?: (payload: P) => string | null): TableQueue<P> {
  return { name, payload, key };
}

export interface EnqueueOptions {
  runAt?: Date;
  /** At most one waiting job per dedupe key: enqueueing it again returns null and writes nothing. */
  dedupeKey?: string;
}

/** Adds a job (inside the caller's transaction when given one); returns its id, or null when deduplicated. */
export async function enqueue<P>(db: Db | Tx, queue: TableQueue<P>, payload: P, opts: EnqueueOptions = {}): Promise<string | null> {
  const parsed = queue.payload.parse(payload);
  const [row] = await rowsOf<{ id: string }>(db, sql`
    insert into jobs (queue, payload, key, dedupe_key, run_at)
    values (${queue.name}, ${JSON.stringify(parsed)}::jsonb, ${queue.key?.(parsed) ?? null}, ${opts.dedupeKey ?? null},
            coalesce(${opts.runAt?.toISOString() ?? null}::timestamptz, now()))
    on conflict (queue, dedupe_key) where state = 'waiting' and dedupe_key is not null do nothing
    returning id::text as id`);
  return row?.id ?? null;
}

interface JobRow {
  id: string;
  key: string | null;
  payload: unknown;
  attempts: number;
}

/** The store of a table queue: claims are serialised per queue, which makes the per-key check exact across processes. */
export function tableStore<P>(db: Db, queue: TableQueue<P>): JobStore<P> {
  const claimRow = (tx: Queryable, owner: string, leaseMs: number, localKeys: string[]) => rowsOf<JobRow>(tx, sql`
    update jobs set lease_owner = ${owner}, lease_expires_at = now() + make_interval(secs => ${leaseMs / 1000})
    where id = (
      select j.id from jobs j
      where j.queue = ${queue.name} and j.state = 'waiting' and j.run_at <= now()
        and (j.lease_expires_at is null or j.lease_expires_at < now())
        and (j.key is null or (
          not (j.key = any(${`{${localKeys.map((k) => JSON.stringify(k)).join(',')}}`}::text[]))
          and not exists (select 1 from jobs o where o.queue = j.queue and o.key = j.key and o.state = 'waiting'
                          and o.id <> j.id and o.lease_expires_at > now())))
      order by j.run_at, j.id
      limit 1 for update skip locked)
    returning id::text as id, key, payload, attempts`);

  return {
    async claim({ owner, leaseMs, running }) {
      const localKeys = running.map((r) => r.key).filter((k): k is string => k !== null);
      for (;;) {
        const row = queue.key
          ? await db.transaction(async (tx) => {
              // One claim at a time per keyed queue (across processes): the "no running job with
              // this key" check then sees every earlier claim, so two processes never start one key.
              await tx.execute(sql`select pg_advisory_xact_lock(hashtext('masivo-jobs'), hashtext(${queue.name}))`);
              const [claimed] = await claimRow(tx, owner, leaseMs, localKeys);
              return claimed;
            })
          : (await claimRow(db, owner, leaseMs, localKeys))[0];
        if (!row) return undefined;
        const parsed = queue.payload.safeParse(row.payload);
        if (parsed.success) return { id: row.id, key: row.key, payload: parsed.data, attempts: row.attempts } satisfies ClaimedJob<P>;
        await db.execute(sql`
          update jobs set state = 'failed', finished_at = now(), lease_owner = null, lease_expires_at = null,
                 last_error = ${`payload no válido: ${parsed.error.issues.map((i) => i.message).join('; ')}`.slice(0, 500)}
          where id = ${row.id}`);
      }
    },
    async renew(job, owner, leaseMs) {
      const rows = await rowsOf(db, sql`
        update jobs set lease_expires_at = now() + make_interval(secs => ${leaseMs / 1000})
        where id = ${job.id} and lease_owner = ${owner} and state = 'waiting' returning id`);
      return rows.length > 0;
    },
    async complete(job, owner) {
      await db.execute(sql`
        update jobs set state = 'done', finished_at = now(), lease_owner = null, lease_expires_at = null
        where id = ${job.id} and lease_owner = ${owner}`);
    },
    async fail(job, owner, err, retryAt) {
      const message = (err instanceof Error ? err.message : String(err)).slice(0, 500);
      await db.execute(sql`
        update jobs set attempts = attempts + 1, last_error = ${message}, lease_owner = null, lease_expires_at = null,
               state = case when ${retryAt === null} then 'failed' else 'waiting' end,
               finished_at = case when ${retryAt === null} then now() end,
               run_at = coalesce(${retryAt?.toISOString() ?? null}::timestamptz, run_at)
        where id = ${job.id} and lease_owner = ${owner}`);
    },
    async release(job, owner) {
      await db.execute(sql`update jobs set lease_owner = null, lease_expires_at = null where id = ${job.id} and lease_owner = ${owner}`);
    },
  };
}

/** Effects fenced by the lease: true while `owner` still holds the job (use inside the effect's transaction). */
export async function stillHolds(db: Queryable, jobId: string, owner: string): Promise<boolean> {
  const rows = await rowsOf(db, sql`select 1 from jobs where id = ${jobId} and lease_owner = ${owner} and state = 'waiting' for update`);
  return rows.length > 0;
}

/** Finished jobs are kept a while for reading, then deleted (in slices, so the delete never holds long locks). */
export async function pruneFinishedJobs(db: Db, keepMs = 7 * 24 * 3600_000, slice = 5_000): Promise<number> {
  let deleted = 0;
  for (;;) {
    const rows = await rowsOf(db, sql`
      delete from jobs where id in (
        select id from jobs where state <> 'waiting' and finished_at < now() - make_interval(secs => ${keepMs / 1000}) limit ${slice})
      returning id`);
    deleted += rows.length;
    if (rows.length < slice) return deleted;
  }
}
