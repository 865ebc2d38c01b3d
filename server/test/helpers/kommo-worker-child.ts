// A worker process of a deployment on PostgreSQL for the shared Kommo rate-limit test: the Kommo
// sync runner (one sync at a time) and write-back runner (two at a time), on the schema named by DB_SCHEMA.
// Configuration arrives through the environment, as in production.
import { loadConfig } from '../../src/config';
import { createContext } from '../../src/context';
import { openDatabase } from '../../src/db/client';
import { startKommoSyncRunner } from '../../src/engine/kommo-sync/sync-runner';
import { startKommoWritebackRunner } from '../../src/engine/kommo-writeback/writeback-runner';

const config = loadConfig(process.env);
const database = await openDatabase({ url: config.DATABASE_URL, searchPath: process.env.DB_SCHEMA, poolSize: 5 });
const ctx = createContext(config, database);
const sync = startKommoSyncRunner(ctx, { pollMs: 100, maxConcurrent: 1 });
const writeback = startKommoWritebackRunner(ctx, { pollMs: 100, maxConcurrent: 2, batchSize: Number(process.env.WRITEBACK_BATCH ?? 250) });
process.stdout.write(`READY ${process.pid} ${ctx.instanceId}\n`);

process.once('SIGTERM', () => {
  void (async () => {
    await writeback.stop();
    await sync.stop();
    await database.close();
    process.exit(0);
  })();
});
process.on('unhandledRejection', (reason) => console.error('unhandled rejection', reason));
