// Kommo's response conventions: hal+json on success, RFC 7807 problem+json on errors, 204 for "no data".
import type { FastifyReply } from 'fastify';
import { randomTraceId } from '../shared/server';

const TITLES: Record<number, string> = {
  400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed',
  429: 'Too Many Requests', 500: 'Internal Server Error', 502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout',
};

export function hal(reply: FastifyReply, body: unknown, status = 200): FastifyReply {
  return reply.code(status).header('content-type', 'application/hal+json; charset=utf-8').send(JSON.stringify(body));
}

export function problem(reply: FastifyReply, status: number, detail: string, extra: Record<string, unknown> = {}): FastifyReply {
  const body = { title: TITLES[status] ?? 'Error', type: `https://httpstatus.es/${status}`, status, detail, ...extra };
  return reply.code(status).header('content-type', 'application/problem+json; charset=utf-8').send(JSON.stringify(body));
}

export function serverError(reply: FastifyReply, status = 500): FastifyReply {
  return problem(reply, status, 'Internal server error', { trace_id: randomTraceId(16).toLowerCase() });
}

export function noContent(reply: FastifyReply): FastifyReply {
  return reply.code(204).send();
}

export function unauthorized(reply: FastifyReply): FastifyReply {
  return problem(reply, 401, 'Invalid user name or password');
}
