import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app';
import { ensurePrivateDir, loadConfig, type Config } from './config';
import { createContext, type AppContext } from './context';
import { openDatabase } from './db/client';
import { migrate } from './db/migrate';
import { startBackgroundWork, type BackgroundWork } from './engine/index';
import { logSerializers } from './plugins/log-serializers';

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
  // The embedded database lives in the data directory: owner-only, like the secret.
  if (!config.DATABASE_URL) {
    ensurePrivateDir(config.DATA_DIR);
    ensurePrivateDir(join(config.DATA_DIR, 'pgdata'));
  }
  const database = await openDatabase({
    url: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    statementTimeoutMs: config.DB_STATEMENT_TIMEOUT_MS,
    connectTimeoutMs: config.DB_CONNECT_TIMEOUT_MS,
  });
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
        // No query strings and no database parameters in logs (personal data, tokens).
        serializers: logSerializers,
      },
    });
    if (!config.WHATSAPP_APP_SECRET) {
      app.log.warn(
        'WHATSAPP_APP_SECRET no está configurado: los webhooks de Meta se rechazan, así que no llegarán estados de entrega, lecturas, bajas ni cambios de plantillas',
      );
    }
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
