import type { FastifyInstance } from 'fastify';
import { buildApp } from './app';
import { loadConfig, type Config } from './config';
import { createContext, type AppContext } from './context';
import { openDatabase } from './db/client';
import { migrate } from './db/migrate';
import { startBackgroundWork, type BackgroundWork } from './engine/index';

export interface RunningServer {
  ctx: AppContext;
  app?: FastifyInstance;
  url?: string;
  stop(): Promise<void>;
}

/** Opens the database, migrates, and starts what ROLE asks for. Used by main and the demo. */
export async function startServer(config: Config = loadConfig()): Promise<RunningServer> {
  if (config.ROLE !== 'all' && !config.DATABASE_URL) {
    throw new Error('ROLE=api y ROLE=worker necesitan DATABASE_URL (PostgreSQL): la base embebida admite un solo proceso');
  }
  const database = await openDatabase({ url: config.DATABASE_URL, dataDir: config.DATA_DIR });
  await migrate(database);
  const ctx = createContext(config, database);

  let app: FastifyInstance | undefined;
  let url: string | undefined;
  if (config.ROLE !== 'worker') {
    app = await buildApp(ctx, {
      serveWeb: true,
      logger: {
        level: config.LOG_LEVEL,
        redact: ['req.headers.authorization', '*.access_token', '*.password', '*.token'],
        serializers: {
          // Meta's verification GET carries hub.verify_token in the query string: keep it out of logs.
          req: (req: { method: string; url: string; ip?: string }) => ({
            method: req.method,
            url: req.url.startsWith('/api/webhooks') ? req.url.split('?')[0] : req.url,
            remoteAddress: req.ip,
          }),
        },
      },
    });
    url = await app.listen({ port: config.PORT, host: config.HOST });
  }
  let work: BackgroundWork | undefined;
  if (config.ROLE !== 'api') work = await startBackgroundWork(ctx);

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await app?.close();
      await work?.stop();
      await database.close();
    })());
  return { ctx, app, url, stop };
}
