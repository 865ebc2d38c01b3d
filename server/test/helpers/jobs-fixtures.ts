import { sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../../src/db/client';
import { rowsOf } from '../../src/db/sql';
import { defineQueue, type ClaimedJob } from '../../src/jobs/index';

/** The test queue: `hangFirst` hangs the first run until the process dies or stops; `failTimes` fails the first runs. */
export const testPayload = z.object({
  n: z.number().int(),
  key: z.string().optional(),
  hangFirst: z.boolean().optional(),
  hangMs: z.number().int().optional(),
  failTimes: z.number().int().optional(),
});
export type TestPayload = z.infer<typeof testPayload>;
export const testQueue = defineQueue('test-work', testPayload, (p) => p.key ?? null);
export const TEST_PERIODIC = 'test-periodic';

export async function createJobTestTables(db: Db): Promise<void> {
  await db.execute(sql`create table if not exists test_job_runs (
    id serial primary key, job_id text not null, owner text not null, key text,
    started_at timestamptz not null default clock_timestamp(), ended_at timestamptz)`);
  // The job's effect: written once however many times the job runs (idempotent by its key).
  await db.execute(sql`create table if not exists test_job_effects (job_id text primary key, n integer not null)`);
  await db.execute(sql`create table if not exists test_periodic_runs (id serial primary key, owner text not null, at timestamptz not null default clock_timestamp())`);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), reject(signal.reason)), { once: true });
  });
}

/** One run of a test job; `onStart` runs once the run is recorded. Returns 'DONE'. */
export async function runTestJob(db: Db, job: ClaimedJob<TestPayload>, owner: string, signal: AbortSignal, onStart?: () => void): Promise<'DONE'> {
  const [run] = await rowsOf<{ id: number; nth: number }>(db, sql`
    with r as (insert into test_job_runs (job_id, owner, key) values (${job.id}, ${owner}, ${job.key}) returning id)
    select r.id, (select count(*)::int from test_job_runs where job_id = ${job.id}) + 1 as nth from r`);
  onStart?.();
  const p = job.payload;
  if (p.hangFirst && run.nth === 1) await sleep(24 * 3600_000, signal);
  if (p.hangMs) await sleep(p.hangMs, signal);
  if (p.failTimes && run.nth <= p.failTimes) {
    await db.execute(sql`update test_job_runs set ended_at = clock_timestamp() where id = ${run.id}`);
    throw new Error('falla de prueba');
  }
  await db.execute(sql`insert into test_job_effects (job_id, n) values (${job.id}, ${p.n}) on conflict (job_id) do nothing`);
  await db.execute(sql`update test_job_runs set ended_at = clock_timestamp() where id = ${run.id}`);
  return 'DONE';
}
