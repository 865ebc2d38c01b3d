import helmet from '@fastify/helmet';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from './context';
import { registerAuthentication } from './plugins/authenticate';
import { registerErrorHandling } from './plugins/errors';
import { registerMetrics } from './plugins/metrics';
import { registerOpenApi } from './plugins/openapi';
import { registerNulCharacterGuard } from './plugins/reject-nul-characters';
import { registerWebApp } from './plugins/web-app';
import { registerRoutes } from './routes/index';

// Validation messages that no schema overrides come out in Spanish too.
z.config(z.locales.es());

export interface BuildAppOptions {
  /** Log requests through the context's logger (off in API tests). */
  logger?: boolean;
  /** Serve the built web app (off in API tests). */
  serveWeb?: boolean;
}

export async function buildApp(ctx: AppContext, opts: BuildAppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    ...(opts.logger ? { loggerInstance: ctx.log as FastifyBaseLogger } : { logger: false }),
    bodyLimit: 1024 * 1024,
    // Only configured proxies may name the client; otherwise the socket address is the client.
    // (A hop count is supported at run time; Fastify's types only list the other forms.)
    trustProxy: ctx.config.TRUST_PROXY as boolean | string[],
    // Webhook signatures are computed over raw bytes; every other body is small JSON.
    routerOptions: { ignoreTrailingSlash: true },
  });
  app.decorate('ctx', ctx);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandling(app);
  registerNulCharacterGuard(app);
  registerMetrics(app);

  await app.register(helmet, {
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
      },
    },
  });
  await registerOpenApi(app);
  registerAuthentication(app, ctx.auth);
  await registerRoutes(app);
  await registerWebApp(app, opts.serveWeb ? undefined : null);
  return app;
}
