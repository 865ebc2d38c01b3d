import helmet from '@fastify/helmet';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from './context';
import type { Permission } from '@masivo/contract/organizations';
import { registerAuthentication } from './plugins/authenticate';
import { registerPhoneMasking } from './plugins/mask-phones';
import { registerScopes } from './plugins/scope';
import { actorOf } from './routes/request-actor';
import { recordActivity } from './services/activity/activity-log';
import { registerErrorHandling } from './plugins/errors';
import { registerMetrics } from './plugins/metrics';
import { registerOpenApi } from './plugins/openapi';
import { registerTracing } from './plugins/tracing';
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

/** Refusals the activity log keeps: the costly or sensitive actions. */
const DENIALS_LOGGED: Permission[] = ['contacts.export', 'campaigns.start', 'campaigns.send', 'campaigns.approve'];

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
  // Mails still in flight finish before the database they report to closes.
  app.addHook('onClose', () => ctx.mailer.idle());
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  // First: the request's span is active for every later hook and the handler.
  registerTracing(app);
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
  registerAuthentication(app, ctx.auth, ctx.apiKeys, (request, permission) => {
    // Refused exports, starts and approvals are kept in the activity log with the reason.
    if (!request.orgId || !DENIALS_LOGGED.includes(permission)) return;
    const action = `${request.routeOptions.config?.activity ?? permission}`;
    recordActivity(ctx.db, actorOf(request), {
      action,
      target: request.routeOptions.url?.includes(':id') ? { type: 'campaign', id: String((request.params as { id?: string }).id ?? '') } : null,
      outcome: 'denied',
      reason: `Rol sin permiso (${permission})`,
    }).catch((err: unknown) => request.log.warn({ err }, 'activity log: denied entry not stored'));
  });
  registerScopes(app);
  registerPhoneMasking(app);
  await registerRoutes(app);
  await registerWebApp(app, opts.serveWeb ? undefined : null);
  return app;
}
