// A process that runs the job runner on a test queue, for the runner's crash and take-over
// tests: the parent kills it with SIGKILL mid-job, or stops it with SIGTERM (graceful stop).
// JOBS_DB_URL + JOBS_SEARCH_PATH (PostgreSQL) or JOBS_DATA_DIR (PGlite on disk) say where.
import { sql } from 'drizzle-orm';
import { openDatabase } from '../../src/db/client';
import { migrate } from '../../src/db/migrate';
import { createLog } from '../../src/lib/log';
import { JobRunner, tableStore } from '../../src/jobs/index';
import { createJobTestTables, runTestJob, TEST_PERIODIC, testQueue } from './jobs-fixtures';

const env = process.env;
const owner = env.JOBS_OWNER ?? `child-${process.pid}`;
const database = await openDatabase(
  env.JOBS_DB_URL ? { url: env.JOBS_DB_URL, searchPath: env.JOBS_SEARCH_PATH, poolSize: 4 } : { dataDir: env.JOBS_DATA_DIR },
);
await migrate(database);
await createJobTestTables(database.db);
const db = database.db;
const runner = new JobRunner({ db, log: createLog({ LOG_LEVEL: 'silent' }), owner, stopTimeoutMs: 3_000 })
  .queue({
    name: testQueue.name,
    store: tableStore(db, testQueue),
    leaseMs: Number(env.JOBS_LEASE_MS ?? 1_500),
    pollMs: 50,
    maxConcurrent: 4,
    run: async (job, signal) => {
      const outcome = await runTestJob(db, job, owner, signal, () => process.stdout.write(`STARTED ${job.id}\n`));
      process.stdout.write(`${outcome} ${job.id}\n`);
    },
  });
if (env.JOBS_PERIODIC_MS) {
  runner.periodic({
    name: TEST_PERIODIC,
    everyMs: Number(env.JOBS_PERIODIC_MS),
    run: async () => {
      await db.execute(sql`insert into test_periodic_runs (owner) values (${owner})`);
    },
  });
}
await runner.start();
process.stdout.write(`READY ${owner}\n`);

process.once('SIGTERM', () => {
  void (async () => {
    await runner.stop();
    await database.close();
    process.exit(0);
  })();
});
