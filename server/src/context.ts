import type { Config } from './config';
import type { Database, Db } from './db/client';
import { readOpsState } from './db/ops-state';
import { createRateCounter } from './db/rate-counters';
import { createKommoClients, type KommoClients } from './integrations/kommo/shared-client';
import { createGraphClient, type GraphClient } from './integrations/whatsapp/graph-client';
import { createLog, type Log } from './lib/log';
import { createMailer, type Mailer } from './lib/mailer';
import { createMetrics, type Metrics } from './lib/metrics';
import { createSecretBox, type SecretBox } from './lib/secret-box';
import { createSignals, type Signals } from './lib/signals';
import { createApiKeysService, type ApiKeysService } from './services/api-keys/api-keys-service';
import { createAuthService, type AuthService } from './services/auth/auth-service';
import { createLoginThrottle } from './services/auth/login-throttle';
import { createTokenService, type TokenService } from './services/auth/tokens';
import { createWebhookSubscriptions, type WebhookSubscriptions } from './services/webhook-endpoints/outbox';

/**
 * What a process is made of: configuration, the database and every object that lives as long
 * as the process and is shared by the API and the background work. Anything process-wide
 * belongs here rather than in a module-level singleton, so a reader (or a test) finds the
 * whole list in one place and two contexts in one process never share state. Built once per
 * process (and once per test file); feature services are built per route plugin from it.
 */
export interface AppContext {
  config: Config;
  database: Database;
  db: Db;
  /**
   * For reads that tolerate a moment of lag (lists, counts, dashboards, charts, exports): the
   * read replica's pool with DATABASE_READ_URL, otherwise the very same object as `db`. Writes,
   * sign-in, the sender, the inbox and any read a write depends on use `db`.
   */
  readDb: Db;
  secrets: SecretBox;
  tokens: TokenService;
  auth: AuthService;
  /** API keys of other systems (the public API's credentials). */
  apiKeys: ApiKeysService;
  /** In-process nudges: campaign changed, webhook stored, sync requested or cancelled. */
  signals: Signals;
  /** Kommo clients sharing one per-account rate limiter (across processes on PostgreSQL): `sync` (patient) and `interactive` (forms). */
  kommo: KommoClients;
  /** Meta's Graph API, one keep-alive pool for every tenant. */
  graph: GraphClient;
  /** The process's logger; Fastify logs through it too. */
  log: Log;
  /** Outgoing mail (invitations); `configured` is false without SMTP_URL. */
  mailer: Mailer;
  /** Prometheus registry served at /metrics (lib/metrics.ts); the engine counts through it. */
  metrics: Metrics;
  /** A name for this process in leases (sync runner, sender), unique per start. */
  instanceId: string;
  /** Which events each organisation's webhook endpoints want, cached briefly (the inbox asks per batch). */
  webhookSubscriptions: WebhookSubscriptions;
}

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
  }
}

export function createContext(config: Config, database: Database): AppContext {
  const tokens = createTokenService(config.APP_SECRET);
  const log = createLog(config);
  return {
    config,
    database,
    db: database.db,
    readDb: database.readDb,
    secrets: createSecretBox(config.APP_SECRET),
    tokens,
    auth: createAuthService(
      database.db,
      tokens,
      // Both counted in the database: every API process shares them.
      createLoginThrottle(database.db),
      createRateCounter(database.db, { name: 'signup', limit: config.REGISTER_RATE_LIMIT, windowMs: 60 * 60 * 1000 }),
    ),
    apiKeys: createApiKeysService(database.db),
    signals: createSignals(),
    kommo: createKommoClients(config, database),
    graph: createGraphClient(config.WHATSAPP_GRAPH_URL),
    log,
    mailer: createMailer(config, log),
    metrics: createMetrics(() => readOpsState(database.db)),
    webhookSubscriptions: createWebhookSubscriptions(database.db),
    instanceId: `${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`,
  };
}
