import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { createIdempotencyStore, requestHash } from '../../services/api-keys/idempotency';
import { databaseRateLimitStore } from '../../services/api-keys/request-windows';
import { ProblemError, registerProblemDetails } from './problem';
import { publishedDocument, V1_DESCRIPTION } from './document';
import campaignRoutes from './campaigns';
import readRoutes from './reads';

declare module 'fastify' {
  interface FastifyRequest {
    /** The `Idempotency-Key` this request claimed: its answer is kept when it ends. */
    idempotencyKey: string | null;
  }
}

/** Requests per minute without a valid key, per address (guessing keys costs time). */
const UNAUTHENTICATED_PER_MINUTE = 30;
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * The public API, `/api/v1`: other systems' campaigns, recipients, contacts and templates with
 * an API key. Its own OpenAPI document (/api/v1/docs), errors as problem details, a rate limit
 * per key shared by every process, and `Idempotency-Key` on every POST.
 */
export default async function publicApiRoutes(app: FastifyInstance) {
  app.decorateRequest('idempotencyKey', null);
  registerProblemDetails(app);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Masivo API pública', description: V1_DESCRIPTION, version: '1.0.0' },
      servers: [{ url: '/api/v1', description: 'production', 'x-internal': false } as { url: string; description: string }],
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', bearerFormat: 'msv_live_…', description: 'Clave de API de la organización (Claves de API, en la consola).' },
        },
      },
      security: [{ apiKey: [] }],
    },
    transform: jsonSchemaTransform,
    transformObject: (documentObject) => publishedDocument(jsonSchemaTransformObject(documentObject) as Record<string, unknown>),
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });

  const { ctx } = app;
  await app.register(rateLimit, {
    hook: 'preValidation',
    store: databaseRateLimitStore(ctx.db),
    timeWindow: 60_000,
    enableDraftSpec: true,
    keyGenerator: (request: FastifyRequest) => (request.apiKey ? `key:${request.apiKey.id}` : `ip:${request.ip}`),
    max: (request: FastifyRequest) => request.apiKey?.rateLimitPerMinute ?? UNAUTHENTICATED_PER_MINUTE,
    allowList: (request: FastifyRequest) => !!request.routeOptions.url?.startsWith('/api/v1/docs'),
    errorResponseBuilder: (_request, context) =>
      new ProblemError('rate-limited', `Límite de ${context.max} peticiones por minuto alcanzado: vuelve a intentar en ${Math.ceil(context.ttl / 1000)} s`),
  });

  // After the rate limit counted the request: a refused key is answered now.
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/api/v1/docs')) return;
    const answerRefusal = async (request: FastifyRequest) => {
      if (request.authFailure) throw request.authFailure;
    };
    route.preValidation = [route.preValidation ?? []].flat().concat(answerRefusal);
  });

  // Any origin may call with a key: keys are never ambient credentials (no cookies).
  app.addHook('onSend', async (request, reply, payload) => {
    reply.header('access-control-allow-origin', '*');
    return payload;
  });

  registerIdempotency(app);
  await app.register(campaignRoutes);
  await app.register(readRoutes);
}

/** Every POST claims its `Idempotency-Key` before acting; the answer is kept 24 h for retries. */
function registerIdempotency(app: FastifyInstance) {
  const store = createIdempotencyStore(app.ctx.db);

  app.addHook('preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.method !== 'POST' || !request.apiKey) return;
    const key = request.headers['idempotency-key'];
    if (typeof key !== 'string' || !IDEMPOTENCY_KEY.test(key)) {
      throw new ProblemError('idempotency-key-missing', 'Toda petición POST lleva la cabecera Idempotency-Key (1 a 255 caracteres visibles)');
    }
    const hash = requestHash(request.method, request.routeOptions.url ?? '', request.params, request.body);
    const outcome = await store.start(request.apiKey.id, key, hash);
    if (outcome.kind === 'new') {
      request.idempotencyKey = key;
      return;
    }
    if (outcome.kind === 'mismatch') {
      throw new ProblemError('idempotency-key-reused', 'Esta Idempotency-Key ya se usó con otro cuerpo: usa una clave nueva para otra petición');
    }
    if (outcome.kind === 'in_progress') {
      throw new ProblemError('idempotency-in-progress', 'Otra petición con esta Idempotency-Key sigue en curso: vuelve a intentar en unos segundos');
    }
    reply.header('idempotent-replayed', 'true');
    return reply.code(outcome.statusCode).header('content-type', outcome.contentType).send(outcome.body);
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const key = request.idempotencyKey;
    if (!key || !request.apiKey) return payload;
    request.idempotencyKey = null;
    if (reply.statusCode >= 500 || typeof payload !== 'string') await store.release(request.apiKey.id, key);
    else await store.finish(request.apiKey.id, key, reply.statusCode, String(reply.getHeader('content-type') ?? 'application/json'), payload);
    return payload;
  });

  // A call cut off before its answer frees its key.
  app.addHook('onRequestAbort', async (request) => {
    if (request.idempotencyKey && request.apiKey) await store.release(request.apiKey.id, request.idempotencyKey);
  });
}
