import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database, type Db } from '../src/db/client';
import { migrate } from '../src/db/migrate';
import { rowsOf } from '../src/db/sql';
import { createLog } from '../src/lib/log';
import { enqueue, JobRunner, pruneFinishedJobs, tableStore, type QueueDefinition, type RetrySchedule } from '../src/jobs/index';
import { openTestDatabase } from './helpers/app';
import { createJobTestTables, runTestJob, testQueue, type TestPayload } from './helpers/jobs-fixtures';

const here = dirname(fileURLToPath(import.meta.url));
const tsxLoader = createRequire(import.meta.url).resolve('tsx');
const PG_URL = process.env.TEST_DATABASE_URL;
const silent = createLog({ LOG_LEVEL: 'silent' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

interface JobRow {
  id: string;
  state: string;
  attempts: number;
  last_error: string | null;
  lease_owner: string | null;
}
const jobRow = async (db: Db, id: string) => (await rowsOf<JobRow>(db, sql`select id::text, state, attempts, last_error, lease_owner from jobs where id = ${id}`))[0];
const runsOf = (db: Db, id: string) =>
  rowsOf<{ owner: string; started_at: string; ended_at: string | null; ms: number }>(
    db,
    sql`select owner, started_at::text, ended_at::text, extract(epoch from started_at) * 1000 as ms from test_job_runs where job_id = ${id} order by id`,
  );
const effectCount = async (db: Db, id: string) =>
  Number((await rowsOf<{ n: number }>(db, sql`select count(*)::int as n from test_job_effects where job_id = ${id}`))[0].n);

describe('the job runner on this database', () => {
  let database: Database;
  let drop: () => Promise<void>;
  let db: Db;
  const runners: JobRunner[] = [];

  beforeAll(async () => {
    ({ database, drop } = await openTestDatabase());
    await migrate(database);
    db = database.db;
    await createJobTestTables(db);
  });
  afterEach(async () => {
    for (const r of runners.splice(0)) await r.stop();
  });
  afterAll(async () => drop());

  function startRunner(owner: string, o: Partial<QueueDefinition<TestPayload>> & { stopTimeoutMs?: number; periodicMs?: number } = {}) {
    const runner = new JobRunner({ db, log: silent, owner, stopTimeoutMs: o.stopTimeoutMs ?? 5_000 }).queue<TestPayload>({
      name: testQueue.name,
      store: tableStore(db, testQueue),
      leaseMs: 2_000,
      pollMs: 30,
      maxConcurrent: 4,
      run: (job, signal) => runTestJob(db, job, owner, signal).then(() => undefined),
      ...o,
    });
    if (o.periodicMs) {
      runner.periodic({
        name: 'test-periodic',
        everyMs: o.periodicMs,
        run: async () => {
          await db.execute(sql`insert into test_periodic_runs (owner) values (${owner})`);
        },
      });
    }
    runners.push(runner);
    void runner.start();
    return runner;
  }

  it('runs every job to its end once, its effect written once, with two runners sharing the queue', async () => {
    const ids: string[] = [];
    for (let n = 0; n < 30; n++) ids.push((await enqueue(db, testQueue, { n }))!);
    startRunner('a');
    startRunner('b');
    await waitFor('every job done', async () => {
      const [r] = await rowsOf<{ n: number }>(db, sql`select count(*)::int as n from jobs where id = any(${`{${ids.join(',')}}`}::bigint[]) and state = 'done'`);
      return Number(r.n) === ids.length;
    });
    for (const id of ids) {
      expect(await effectCount(db, id)).toBe(1);
      expect(await runsOf(db, id)).toHaveLength(1);
    }
  });

  it('never runs two jobs of one key at once, across runners, while other keys run beside them', async () => {
    const ids: string[] = [];
    for (let n = 0; n < 12; n++) ids.push((await enqueue(db, testQueue, { n, key: `cuenta-${n % 3}`, hangMs: 60 }))!);
    startRunner('a');
    startRunner('b');
    await waitFor('every keyed job done', async () => {
      const [r] = await rowsOf<{ n: number }>(db, sql`select count(*)::int as n from jobs where id = any(${`{${ids.join(',')}}`}::bigint[]) and state = 'done'`);
      return Number(r.n) === ids.length;
    }, 30_000);
    const runs = await rowsOf<{ key: string; s: number; e: number }>(db, sql`
      select key, extract(epoch from started_at) * 1000 as s, extract(epoch from ended_at) * 1000 as e
      from test_job_runs where job_id = any(${`{${ids.join(',')}}`}::text[]) order by started_at`);
    expect(runs).toHaveLength(12);
    let overlapsOfOneKey = 0;
    let overlapsOfTwoKeys = 0;
    for (let i = 0; i < runs.length; i++) {
      for (let j = i + 1; j < runs.length; j++) {
        const overlap = Number(runs[j].s) < Number(runs[i].e) && Number(runs[i].s) < Number(runs[j].e);
        if (!overlap) continue;
        if (runs[i].key === runs[j].key) overlapsOfOneKey++;
        else overlapsOfTwoKeys++;
      }
    }
    expect(overlapsOfOneKey).toBe(0);
    expect(overlapsOfTwoKeys).toBeGreaterThan(0);
  });

  it('retries a failed job on its schedule, then gives it up with the reason', async () => {
    const retry: RetrySchedule = { baseMs: 300, maxMs: 10_000, maxAttempts: 3 };
    const recovers = (await enqueue(db, testQueue, { n: 1, failTimes: 2 }))!;
    const givesUp = (await enqueue(db, testQueue, { n: 2, failTimes: 5 }))!;
    startRunner('a', { retry });
    await waitFor('both settled', async () => (await jobRow(db, recovers)).state === 'done' && (await jobRow(db, givesUp)).state === 'failed', 30_000);
    const ok = await jobRow(db, recovers);
    expect(ok.attempts).toBe(2);
    expect(await effectCount(db, recovers)).toBe(1);
    const runs = await runsOf(db, recovers);
    expect(runs).toHaveLength(3);
    // 300 ms after the first failure, 600 ms after the second
    expect(Number(runs[1].ms) - Number(runs[0].ms)).toBeGreaterThanOrEqual(290);
    expect(Number(runs[2].ms) - Number(runs[1].ms)).toBeGreaterThanOrEqual(590);
    const failed = await jobRow(db, givesUp);
    expect(failed).toMatchObject({ attempts: 3, last_error: 'falla de prueba', lease_owner: null });
    expect(await runsOf(db, givesUp)).toHaveLength(3);
    expect(await effectCount(db, givesUp)).toBe(0);
  });

  it('parses payloads: a bad one is refused when enqueued, and a bad row fails without running', async () => {
    await expect(enqueue(db, testQueue, { n: 'uno' } as unknown as TestPayload)).rejects.toThrow();
    const [bad] = await rowsOf<{ id: string }>(db, sql`insert into jobs (queue, payload) values ('test-work', '{"n":"dos"}') returning id::text`);
    startRunner('a');
    const row = await waitFor('the bad row failed', async () => {
      const r = await jobRow(db, bad.id);
      return r.state === 'failed' ? r : undefined;
    });
    expect(row.last_error).toMatch(/^payload no válido/);
    expect(await runsOf(db, bad.id)).toHaveLength(0);
  });

  it('keeps one waiting job per dedupe key', async () => {
    const first = await enqueue(db, testQueue, { n: 1 }, { dedupeKey: 'invitacion-7', runAt: new Date(Date.now() + 3600_000) });
    const second = await enqueue(db, testQueue, { n: 2 }, { dedupeKey: 'invitacion-7' });
    expect(first).not.toBeNull();
    expect(second).toBeNull();
  });

  it('stops gracefully: the running job is released and another runner resumes it at once', async () => {
    const id = (await enqueue(db, testQueue, { n: 5, hangFirst: true }))!;
    const a = startRunner('a', { leaseMs: 60_000 });
    await waitFor('the first run', async () => (await runsOf(db, id)).length === 1);
    const t0 = Date.now();
    await a.stop();
    expect(Date.now() - t0).toBeLessThan(3_000);
    expect(await jobRow(db, id)).toMatchObject({ state: 'waiting', lease_owner: null, attempts: 0 });
    startRunner('b', { leaseMs: 60_000 });
    await waitFor('resumed by b', async () => (await jobRow(db, id)).state === 'done', 10_000);
    expect((await runsOf(db, id)).map((r) => r.owner)).toEqual(['a', 'b']);
    expect(await effectCount(db, id)).toBe(1);
  });

  it('a job that ignores the stop holds it no longer than the bound, and its lease goes back', async () => {
    const id = (await enqueue(db, testQueue, { n: 6, hangMs: 4_000 }))!;
    const stubborn = new JobRunner({ db, log: silent, owner: 'terco', stopTimeoutMs: 400 }).queue<TestPayload>({
      name: testQueue.name,
      store: tableStore(db, testQueue),
      leaseMs: 60_000,
      pollMs: 30,
      run: (job) => runTestJob(db, job, 'terco', new AbortController().signal).then(() => undefined),
    });
    await stubborn.start();
    await waitFor('the run', async () => (await runsOf(db, id)).length === 1);
    const t0 = Date.now();
    await stubborn.stop();
    expect(Date.now() - t0).toBeLessThan(2_000);
    expect(await jobRow(db, id)).toMatchObject({ state: 'waiting', lease_owner: null });
    await sleep(4_500); // the stubborn run ends; its outcome is not written (the lease is gone)
    expect(await jobRow(db, id)).toMatchObject({ state: 'waiting', lease_owner: null });
  });

  it('deletes finished jobs after a week and keeps the waiting ones', async () => {
    const [old] = await rowsOf<{ id: string }>(db, sql`
      insert into jobs (queue, payload, state, finished_at) values ('viejo', '{}', 'done', now() - interval '8 days') returning id::text`);
    const [recent] = await rowsOf<{ id: string }>(db, sql`
      insert into jobs (queue, payload, state, finished_at) values ('viejo', '{}', 'failed', now() - interval '1 day') returning id::text`);
    const [waiting] = await rowsOf<{ id: string }>(db, sql`
      insert into jobs (queue, payload, created_at) values ('viejo', '{}', now() - interval '30 days') returning id::text`);
    expect(await pruneFinishedJobs(db)).toBe(1);
    const left = await rowsOf<{ id: string }>(db, sql`select id::text from jobs where queue = 'viejo' order by id`);
    expect(left.map((r) => r.id)).toEqual([recent.id, waiting.id]);
    expect(left.map((r) => r.id)).not.toContain(old.id);
  });

  it('runs a periodic job once per period across runners', async () => {
    startRunner('a', { periodicMs: 250 });
    startRunner('b', { periodicMs: 250 });
    await sleep(2_500);
    for (const r of runners.splice(0)) await r.stop();
    const runs = await rowsOf<{ owner: string; ms: number }>(db, sql`select owner, extract(epoch from at) * 1000 as ms from test_periodic_runs order by at`);
    // A period counts from each run's start and the next run is looked for when it is due, so a
    // period is not stretched by the run nor by a look that came a moment early (then 5 runs).
    console.log(`periodic runs in 2.5 s at 250 ms: ${runs.length}`);
    expect(runs.length).toBeGreaterThanOrEqual(7);
    expect(runs.length).toBeLessThanOrEqual(2_500 / 250 + 1);
    expectSpaced(runs.map((r) => Number(r.ms)), 250);
  });
});

/**
 * Runs started a period apart. The runner spaces the claims (each run's start is at least a
 * period after the previous one's); the test sees the time of the run's own insert, which trails
 * its claim by a few milliseconds that vary on a loaded machine. So each gap may fall short of the
 * period by that trail, and the runs together keep the period on average.
 */
function expectSpaced(ms: number[], periodMs: number) {
  for (let i = 1; i < ms.length; i++) expect(ms[i]! - ms[i - 1]!).toBeGreaterThanOrEqual(periodMs - 50);
  expect((ms.at(-1)! - ms[0]!) / (ms.length - 1)).toBeGreaterThanOrEqual(periodMs - 10);
}

// ---- real processes, killed with SIGKILL ----

interface Child {
  proc: ChildProcess;
  owner: string;
  lines: string[];
  exited: Promise<number | null>;
}

async function spawnChild(env: Record<string, string>, owner: string): Promise<Child> {
  const proc = spawn(process.execPath, ['--import', tsxLoader, join(here, 'helpers/jobs-child.ts')], {
    env: { ...process.env, ...env, JOBS_OWNER: owner },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  let buf = '';
  proc.stdout!.on('data', (chunk: Buffer) => {
    buf += chunk.toString();
    const parts = buf.split('\n');
    buf = parts.pop()!;
    lines.push(...parts);
  });
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  await waitFor(`${owner} ready`, async () => lines.includes(`READY ${owner}`) || (proc.exitCode !== null ? Promise.reject(new Error(`${owner} exited`)) : false), 60_000);
  return { proc, owner, lines, exited };
}

describe.runIf(PG_URL)('crash and take-over between processes on PostgreSQL', () => {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  let admin: pg.Client;
  let database: Database;
  let db: Db;
  const children: Child[] = [];

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query('create extension if not exists pg_trgm');
    await admin.query(`create schema ${schema}`);
    database = await openDatabase({ url: PG_URL, searchPath: schema, poolSize: 4 });
    await migrate(database);
    db = database.db;
    await createJobTestTables(db);
  });
  afterAll(async () => {
    for (const c of children) c.proc.kill('SIGKILL');
    await database.close();
    await admin.query(`drop schema ${schema} cascade`);
    await admin.end();
  });

  it('a job whose process dies mid-run is taken over by the other process once its lease expires, and its effect is written once', async () => {
    const env = { JOBS_DB_URL: PG_URL!, JOBS_SEARCH_PATH: schema, JOBS_LEASE_MS: '1500' };
    const [a, b] = await Promise.all([spawnChild(env, 'uno'), spawnChild(env, 'dos')]);
    children.push(a, b);
    const id = (await enqueue(db, testQueue, { n: 42, hangFirst: true }))!;
    const holder = await waitFor('a process started the job', async () => [a, b].find((c) => c.lines.includes(`STARTED ${id}`)));
    const other = holder === a ? b : a;
    holder.proc.kill('SIGKILL');
    await holder.exited;
    await waitFor('the other process finished it', async () => other.lines.includes(`DONE ${id}`), 20_000);
    const runs = await runsOf(db, id);
    expect(runs.map((r) => r.owner)).toEqual([holder.owner, other.owner]);
    expect(runs[0].ended_at).toBeNull(); // the first run died mid-job
    // not before the dead process's lease ran out (1.5 s, renewed every 0.5 s)
    expect(Number(runs[1].ms) - Number(runs[0].ms)).toBeGreaterThanOrEqual(1_400);
    expect(await effectCount(db, id)).toBe(1);
    expect(await jobRow(db, id)).toMatchObject({ state: 'done', attempts: 0, lease_owner: null });

    // The survivor and a new process share a queue of keyed jobs: each runs once, one per key at a time.
    const c = await spawnChild(env, 'tres');
    children.push(c);
    const ids: string[] = [];
    for (let n = 0; n < 40; n++) ids.push((await enqueue(db, testQueue, { n, key: `k${n % 4}`, hangMs: 10 }))!);
    await waitFor('all done', async () => {
      const [r] = await rowsOf<{ n: number }>(db, sql`select count(*)::int as n from jobs where id = any(${`{${ids.join(',')}}`}::bigint[]) and state = 'done'`);
      return Number(r.n) === ids.length;
    }, 40_000);
    const [effects] = await rowsOf<{ n: number }>(db, sql`select count(*)::int as n from test_job_effects where job_id = any(${`{${ids.join(',')}}`}::text[])`);
    expect(Number(effects.n)).toBe(40);
    const [overlaps] = await rowsOf<{ n: number }>(db, sql`
      select count(*)::int as n from test_job_runs x join test_job_runs y on x.key = y.key and x.id < y.id
      where x.job_id = any(${`{${ids.join(',')}}`}::text[]) and y.job_id = any(${`{${ids.join(',')}}`}::text[])
        and y.started_at < x.ended_at and x.started_at < y.ended_at`);
    expect(Number(overlaps.n)).toBe(0);

    // SIGTERM is a graceful stop: both exit 0 and hold no lease.
    other.proc.kill('SIGTERM');
    c.proc.kill('SIGTERM');
    expect(await other.exited).toBe(0);
    expect(await c.exited).toBe(0);
    const [held] = await rowsOf<{ n: number }>(db, sql`select count(*)::int as n from jobs where lease_owner is not null`);
    expect(Number(held.n)).toBe(0);
  }, 120_000);

  it('runs a periodic job once per period across two processes', async () => {
    const env = { JOBS_DB_URL: PG_URL!, JOBS_SEARCH_PATH: schema, JOBS_PERIODIC_MS: '300' };
    const [a, b] = await Promise.all([spawnChild(env, 'p1'), spawnChild(env, 'p2')]);
    children.push(a, b);
    await sleep(3_000);
    a.proc.kill('SIGTERM');
    b.proc.kill('SIGTERM');
    await Promise.all([a.exited, b.exited]);
    const runs = await rowsOf<{ owner: string; ms: number }>(db, sql`select owner, extract(epoch from at) * 1000 as ms from test_periodic_runs order by at`);
    expect(runs.length).toBeGreaterThanOrEqual(3);
    expectSpaced(runs.map((r) => Number(r.ms)), 300);
  }, 90_000);
});

describe.runIf(!PG_URL)('crash and restart on PGlite (one process)', () => {
  it('a job whose process dies mid-run runs again after a restart, its effect written once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'jobs-pglite-'));
    try {
      let database = await openDatabase({ dataDir: dir });
      await migrate(database);
      await createJobTestTables(database.db);
      const id = (await enqueue(database.db, testQueue, { n: 7, hangFirst: true }))!;
      await database.close();

      const env = { JOBS_DATA_DIR: dir, JOBS_LEASE_MS: '1500' };
      const first = await spawnChild(env, 'antes');
      await waitFor('the first run', async () => first.lines.includes(`STARTED ${id}`), 30_000);
      first.proc.kill('SIGKILL');
      await first.exited;

      const second = await spawnChild(env, 'despues');
      await waitFor('the run after the restart', async () => second.lines.includes(`DONE ${id}`), 30_000);
      second.proc.kill('SIGTERM');
      expect(await second.exited).toBe(0);

      database = await openDatabase({ dataDir: dir });
      const runs = await runsOf(database.db, id);
      expect(runs.map((r) => r.owner)).toEqual(['antes', 'despues']);
      expect(runs[0].ended_at).toBeNull();
      expect(await effectCount(database.db, id)).toBe(1);
      expect(await jobRow(database.db, id)).toMatchObject({ state: 'done', attempts: 0, lease_owner: null });
      await database.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
