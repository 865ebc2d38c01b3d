/**
 * The job runner's own figures, for the comparison with pg-boss and graphile-worker
 * (docs/architecture/background-jobs.md): trivial jobs per second with 10 at once, and the time
 * from enqueue to start on an idle runner, by polling alone (poll 1 s) and with a wake.
 *
 *   npx tsx bench/job-runner.bench.ts [--pglite] [--jobs 2000]
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { z } from 'zod';
import { openDatabase } from '../server/src/db/client';
import { migrate } from '../server/src/db/migrate';
import { createLog } from '../server/src/lib/log';
import { defineQueue, enqueue, JobRunner, tableStore } from '../server/src/jobs/index';

const { values: args } = parseArgs({ options: { pglite: { type: 'boolean', default: false }, jobs: { type: 'string', default: '2000' } } });
const N = Number(args.jobs);
const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `bench_jobs_${randomBytes(4).toString('hex')}`;
let admin: pg.Client | undefined;
if (!args.pglite) {
  admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query('create extension if not exists pg_trgm');
  await admin.query(`create schema ${schema}`);
}
const database = await openDatabase(args.pglite ? {} : { url: PG_URL, searchPath: schema, poolSize: 12 });
await migrate(database);
const db = database.db;
const log = createLog({ LOG_LEVEL: 'silent' });
const q = defineQueue('bench', z.object({ i: z.number() }));

let done = 0;
let onDone: () => void = () => undefined;
let started = 0;
const lats: number[] = [];
let gotIt: () => void = () => undefined;
const runner = new JobRunner({ db, log, owner: 'bench' }).queue({
  name: q.name,
  store: tableStore(db, q),
  maxConcurrent: 10,
  pollMs: 1000,
  run: async (job) => {
    if (job.payload.i < 0) {
      lats.push(performance.now() - started);
      gotIt();
      return;
    }
    if (++done >= N) onDone();
  },
});
for (let i = 0; i < N; i++) await enqueue(db, q, { i });
const all = new Promise<void>((r) => (onDone = r));
let t = performance.now();
await runner.start();
await all;
const dt = performance.now() - t;
const rate = Math.round(N / (dt / 1000));

async function latency(wake: boolean) {
  lats.length = 0;
  for (let k = 0; k < 10; k++) {
    await new Promise((r) => setTimeout(r, 137));
    const p = new Promise<void>((r) => (gotIt = r));
    started = performance.now();
    await enqueue(db, q, { i: -1 });
    if (wake) runner.wake(q.name);
    await p;
  }
  lats.sort((a, b) => a - b);
  return `median ${Math.round(lats[5])} ms, max ${Math.round(lats[9])} ms`;
}
const polled = await latency(false);
const woken = await latency(true);
await runner.stop();
t = performance.now();
console.table([{ database: args.pglite ? 'PGlite' : 'PostgreSQL', jobs: N, 'jobs/s (10 at once)': rate, 'pickup, poll 1 s': polled, 'pickup, woken': woken }]);
await database.close();
if (admin) {
  await admin.query(`drop schema ${schema} cascade`);
  await admin.end();
}
