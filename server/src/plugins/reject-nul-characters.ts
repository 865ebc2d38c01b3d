import type { FastifyInstance } from 'fastify';
import { AppError } from '../lib/errors';

/** Deep enough for any body this API accepts; deeper input is not ours to walk. */
const MAX_DEPTH = 32;

function hasNul(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object' || Buffer.isBuffer(value)) return false;
  if (Array.isArray(value)) return value.some((v) => hasNul(v, depth + 1));
  return Object.entries(value).some(([k, v]) => k.includes('\u0000') || hasNul(v, depth + 1));
}

/**
 * PostgreSQL text cannot hold the NUL character: a `\u0000` in a path, query or JSON body
 * would otherwise reach the database and come back as a 500. Refused up front as bad input.
 * Runs after validation, so JSON carried in a query string (`tags=["\\u0000"]`) is checked
 * decoded. (The webhook body is a raw Buffer and is left alone; its route deals with it.)
 */
export function registerNulCharacterGuard(app: FastifyInstance) {
  app.addHook('preHandler', async (request) => {
    if (hasNul(request.params) || hasNul(request.query) || hasNul(request.body)) {
      throw new AppError(400, 'La petición contiene caracteres no permitidos');
    }
  });
}
