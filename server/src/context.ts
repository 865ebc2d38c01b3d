import type { Config } from './config';
import type { Database, Db } from './db/client';
import { createSecretBox, type SecretBox } from './lib/secret-box';
import { createAuthService, type AuthService } from './services/auth/auth-service';
import { createLoginThrottle } from './services/auth/login-throttle';
import { createRateLimiter } from './services/auth/rate-limiter';
import { createTokenService, type TokenService } from './services/auth/tokens';

/**
 * What every route and background job needs: configuration, the database and the
 * cross-cutting services. Built once per process (and once per test file).
 */
export interface AppContext {
  config: Config;
  database: Database;
  db: Db;
  secrets: SecretBox;
  tokens: TokenService;
  auth: AuthService;
  /** A name for this process in leases (sync runner, sender), unique per start. */
  instanceId: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
  }
}

export function createContext(config: Config, database: Database): AppContext {
  const tokens = createTokenService(config.APP_SECRET);
  return {
    config,
    database,
    db: database.db,
    secrets: createSecretBox(config.APP_SECRET),
    tokens,
    auth: createAuthService(
      database.db,
      tokens,
      createLoginThrottle(),
      createRateLimiter({ limit: config.REGISTER_RATE_LIMIT, windowMs: 60 * 60 * 1000 }),
    ),
    instanceId: `${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`,
  };
}
