import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { PROBLEM_TYPES, problemType, type Problem, type ProblemKind } from '@masivo/contract/public-api';
import { AppError } from '../../lib/errors';
import { ExplicitRecipientsError } from '../../services/campaigns/explicit-recipients';

/** An error the public API answers with its own problem type (not derived from the status). */
export class ProblemError extends AppError {
  constructor(
    readonly kind: ProblemKind,
    detail: string,
    statusCode: number = PROBLEM_TYPES[kind].status,
  ) {
    super(statusCode, detail);
  }
}

const KIND_BY_STATUS: Record<number, ProblemKind> = {
  400: 'invalid-request',
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not-found',
  409: 'conflict',
  413: 'invalid-request',
  415: 'invalid-request',
  422: 'unprocessable',
  429: 'rate-limited',
  502: 'upstream',
};

export function sendProblem(reply: FastifyReply, kind: ProblemKind, detail: string, extra: Partial<Problem> = {}, status: number = PROBLEM_TYPES[kind].status) {
  const body: Problem = { type: problemType(kind), title: PROBLEM_TYPES[kind].title, status, detail, instance: reply.request.url.slice(0, 2000), ...extra };
  return reply.code(status).header('content-type', 'application/problem+json; charset=utf-8').send(JSON.stringify(body));
}

/**
 * Every error of the public API as RFC 9457 problem details: a stable `type` per kind of error,
 * a Spanish `title` and `detail`, and for invalid input the `errors` with their JSON pointers.
 */
export function registerProblemDetails(app: FastifyInstance) {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (hasZodFastifySchemaValidationErrors(error)) {
      const errors = error.validation.slice(0, 20).map((issue) => ({
        pointer: `${issue.instancePath || '/'}`.slice(0, 300),
        detail: (issue.message ?? 'Valor inválido').slice(0, 500),
      }));
      const first = errors[0];
      const where = first && first.pointer !== '/' ? `${first.pointer.replace(/^\//, '').replace(/\//g, '.')}: ` : '';
      return sendProblem(reply, 'validation', `${where}${first?.detail ?? 'Datos inválidos'}`, { errors });
    }
    if (error instanceof ProblemError) return sendProblem(reply, error.kind, error.message, {}, error.statusCode);
    if (error instanceof ExplicitRecipientsError) {
      const errors = error.problems.slice(0, 20).map((p) => ({ pointer: `/recipients/${p.index}`, detail: p.message.slice(0, 500) }));
      return sendProblem(reply, 'unprocessable', error.message.slice(0, 2000), { errors }, 422);
    }
    if (error instanceof AppError) {
      return sendProblem(reply, KIND_BY_STATUS[error.statusCode] ?? (error.statusCode >= 500 ? 'internal' : 'invalid-request'), error.message, {}, error.statusCode);
    }
    const status = error.statusCode ?? 500;
    if (status === 429) return sendProblem(reply, 'rate-limited', error.message, {}, 429);
    if (status < 500) return sendProblem(reply, KIND_BY_STATUS[status] ?? 'invalid-request', 'Petición inválida', {}, status);
    request.log.error({ err: error }, 'unhandled error');
    return sendProblem(reply, 'internal', 'Error interno del servidor', {}, 500);
  });
  app.setNotFoundHandler((request, reply) => sendProblem(reply, 'not-found', 'La ruta no existe en la API pública'));
}
