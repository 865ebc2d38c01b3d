import type { FastifyInstance } from 'fastify';
import { isWellFormedText } from '@masivo/contract/common';
import { AppError } from '../lib/errors';

/** Far deeper than any body this API accepts; a deeper one is refused rather than half-checked. */
const MAX_DEPTH = 64;

const FORBIDDEN = 'La petición contiene caracteres no permitidos';
const TOO_DEEP = 'La petición tiene demasiados niveles de anidación';

const badText = (s: string) => s.includes('\u0000') || !isWellFormedText(s);

/**
 * Walks with an explicit stack, so a hostile nesting depth cannot overflow the call stack.
 * Returns the message to answer with, or null when the value is clean.
 */
export function inputProblem(root: unknown): string | null {
  const stack: Array<[unknown, number]> = [[root, 0]];
  while (stack.length) {
    const [value, depth] = stack.pop()!;
    if (typeof value === 'string') {
      if (badText(value)) return FORBIDDEN;
      continue;
    }
    if (value === null || typeof value !== 'object' || Buffer.isBuffer(value)) continue;
    if (depth >= MAX_DEPTH) return TOO_DEEP;
    if (Array.isArray(value)) {
      for (const v of value) stack.push([v, depth + 1]);
      continue;
    }
    for (const [k, v] of Object.entries(value)) {
      if (badText(k)) return FORBIDDEN;
      stack.push([v, depth + 1]);
    }
  }
  return null;
}

/**
 * PostgreSQL text cannot hold the NUL character nor a lone UTF-16 surrogate: either one in a
 * path, query or JSON body would otherwise reach the database and come back as a 500. Refused
 * up front as bad input. Runs after validation, so JSON carried in a query string
 * (`tags=["\\u0000"]`, `customFieldFilters` with `"\\ud800"`) is checked decoded. (The webhook
 * body is a raw Buffer and is left alone; its route cleans it.)
 */
export function registerNulCharacterGuard(app: FastifyInstance) {
  app.addHook('preHandler', async (request) => {
    const problem = inputProblem(request.params) ?? inputProblem(request.query) ?? inputProblem(request.body);
    if (problem) throw new AppError(400, problem);
  });
}
