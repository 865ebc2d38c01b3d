import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

export const WEB_DIST = join(dirname(fileURLToPath(import.meta.url)), '../../../web/dist');

/**
 * Serves the built console from the same port as the API. Unknown non-API paths get
 * index.html so React Router can handle deep links such as /campaigns/42.
 */
export async function registerWebApp(app: FastifyInstance, distDir: string | null = WEB_DIST) {
  const hasBuild = !!distDir && existsSync(join(distDir, 'index.html'));
  if (hasBuild) {
    await app.register(fastifyStatic, { root: distDir, wildcard: false, index: false });
  }
  app.setNotFoundHandler((request, reply) => {
    const isPage = request.method === 'GET' && !request.url.startsWith('/api/') && request.url !== '/api';
    if (hasBuild && isPage) return reply.type('text/html').header('cache-control', 'no-cache').sendFile('index.html');
    return reply.code(404).send({ error: 'Ruta no encontrada' });
  });
}
