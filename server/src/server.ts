import { join } from 'node:path';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { buildApp } from './app';
import { ensurePrivateDir, loadConfig, type Config } from './config';
import { createContext, type AppContext } from './context';
import { openDatabase, READ_URL_NEEDS_POSTGRES } from './db/client';
import { migrate } from './db/migrate';
import type { BackgroundWork } from './engine/background-work';
import { startBackgroundWork } from './engine/index';
import { startTracing } from './lib/tracing';
import { registerErrorHandling } from './plugins/errors';
import { registerTracing } from './plugins/tracing';
import { registerMetrics } from './plugins/metrics';
import healthRoutes from './routes/health/index';

/** SIGTERM to exit: orchestrators kill at 10 s (compose's stop_grace_period is 15 s). */
export const SHUTDOWN_BUDGET_MS = 8_000;
/** How often idle keep-alive sockets are closed while requests drain. */
const IDLE_SWEEP_MS = 100;

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
  if (config.DATABASE_READ_URL && !config.DATABASE_URL) throw new Error(READ_URL_NEEDS_POSTGRES);
  // The embedded database lives in the data directory: owner-only, like the secret.
  if (!config.DATABASE_URL) {
    ensurePrivateDir(config.DATA_DIR);
    ensurePrivateDir(join(config.DATA_DIR, 'pgdata'));
  }
  // Before anything makes a span; off (and the SDK not loaded) without OTEL_EXPORTER_OTLP_ENDPOINT.
  const tracing = await startTracing(config);
  const database = await openDatabase({
    url: config.DATABASE_URL,
    readUrl: config.DATABASE_READ_URL,
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
      // Requests are logged through ctx.log (lib/log.ts: LOG_LEVEL, redaction, serializers).
      logger: true,
    });
    if (!config.WHATSAPP_APP_SECRET) {
      app.log.warn(
        'WHATSAPP_APP_SECRET no está configurado: los webhooks de Meta se rechazan, así que no llegarán estados de entrega, lecturas, bajas ni cambios de plantillas',
      );
    }
    url = await app.listen({ port: config.PORT, host: config.HOST });
  } else {
    // A worker answers its health check and the scraper, nothing else.
    app = await buildWorkerApp(ctx);
    url = await app.listen({ port: config.PORT, host: config.HOST });
  }
  let work: BackgroundWork | undefined;
  if (config.ROLE !== 'api') work = await startBackgroundWork(ctx);

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      if (app) await closeHttp(app, Date.now() + SHUTDOWN_BUDGET_MS / 2);
      // Senders stop, flush their results and give their numbers back; the sync gives its lease back.
      await work?.stop();
      await database.close();
      // Last: the spans of everything above are exported before the process exits.
      await tracing.shutdown().catch((err) => ctx.log.warn({ err }, 'no se pudieron exportar las últimas trazas'));
    })());
  return { ctx, app, url, stop };
}

/**
 * Stops accepting, lets requests in flight finish and closes keep-alive sockets as soon as
 * they are idle. Node closes idle sockets once, when closing starts: a socket whose request
 * finishes later would stay open until its keep-alive timeout (72 s) and hold the process up,
 * so idle sockets are swept until the server is closed; past the deadline every socket goes.
 */
async function closeHttp(app: FastifyInstance, deadline: number) {
  const closed = app.close();
  const sweep = setInterval(() => app.server.closeIdleConnections(), IDLE_SWEEP_MS);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), Math.max(0, deadline - Date.now()))));
  try {
    if ((await Promise.race([closed, late])) === 'late') {
      app.log.warn('requests still running at the shutdown deadline: closing their connections');
      app.server.closeAllConnections();
      await closed;
    }
  } finally {
    clearInterval(sweep);
    clearTimeout(timer);
  }
}

async function buildWorkerApp(ctx: AppContext): Promise<FastifyInstance> {
  // Requests are not logged one by one: the metrics count them.
  const app = Fastify({ loggerInstance: ctx.log as FastifyBaseLogger, logController: new LogController({ disableRequestLogging: true }) });
  app.decorate('ctx', ctx);
  registerTracing(app);
  registerErrorHandling(app);
  registerMetrics(app);
  await app.register(healthRoutes, { prefix: '/api/health' });
  return app;
}
