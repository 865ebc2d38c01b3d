import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../lib/errors';

const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/;

/**
 * Figures about tenants (numbers, queue sizes, error codes) are not for the public. With
 * METRICS_TOKEN set, the scraper sends it as a bearer token; without it, only this machine
 * may scrape, and not through a proxy (a proxy on this machine would make every client look
 * local, so a forwarded request is refused).
 */
function mayScrape(request: FastifyRequest, token: string | undefined): boolean {
  if (token) {
    const given = Buffer.from(request.headers.authorization ?? '');
    const wanted = Buffer.from(`Bearer ${token}`);
    return given.length === wanted.length && timingSafeEqual(given, wanted);
  }
  return LOOPBACK.test(request.socket.remoteAddress ?? '') && request.headers['x-forwarded-for'] === undefined;
}

/** GET /metrics (Prometheus text) and HTTP latency by route pattern. */
export function registerMetrics(app: FastifyInstance) {
  const { metrics, config } = app.ctx;
  app.addHook('onResponse', async (request, reply) => {
    // The pattern, not the URL: ids and query strings would make a series per request.
    metrics.httpRequest(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
  });
  app.get('/metrics', { config: { public: true }, schema: { hide: true } }, async (request, reply) => {
    if (!mayScrape(request, config.METRICS_TOKEN)) {
      throw config.METRICS_TOKEN
        ? new AppError(401, 'Token de métricas inválido.')
        : new AppError(403, 'Las métricas solo se sirven a esta máquina; configura METRICS_TOKEN para leerlas desde otra.');
    }
    reply.header('content-type', metrics.registry.contentType);
    reply.header('cache-control', 'no-store');
    return metrics.scrape();
  });
}
