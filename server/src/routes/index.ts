import type { FastifyInstance } from 'fastify';
import authRoutes from './auth/index';
import healthRoutes from './health/index';

/** Every API resource and its prefix, in one readable table. */
export async function registerRoutes(app: FastifyInstance) {
  await app.register(healthRoutes, { prefix: '/api/health' });
  await app.register(authRoutes, { prefix: '/api/auth' });
}
