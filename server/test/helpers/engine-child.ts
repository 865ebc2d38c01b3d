// The server with the campaign engine, run as a child process that the chaos test and bench
// kill with SIGKILL. Configuration arrives through the environment (as in production) plus
// CAMPAIGN_ENGINE_OPTIONS (JSON) for the shortened timings.
import { buildApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { createContext } from '../../src/context';
import { openDatabase } from '../../src/db/client';
import { migrate } from '../../src/db/migrate';
import { startCampaignEngine } from '../../src/engine/campaigns/index';

const config = loadConfig(process.env);
const database = await openDatabase({ url: config.DATABASE_URL, dataDir: config.DATA_DIR, poolSize: 10 });
await migrate(database);
const ctx = createContext(config, database);
const app = await buildApp(ctx);
await app.listen({ port: config.PORT, host: '127.0.0.1' });
const engine = startCampaignEngine(ctx, JSON.parse(process.env.CAMPAIGN_ENGINE_OPTIONS ?? '{}'));
process.stdout.write(`READY ${process.pid} ${ctx.instanceId}\n`);

const stop = async () => {
  await app.close();
  await engine.stop();
  await database.close();
  process.exit(0);
};
process.once('SIGTERM', () => void stop());
process.on('unhandledRejection', (reason) => console.error('unhandled rejection', reason));
