import type { FastifyInstance, FastifyRequest } from 'fastify';
import { extractParent, failSpan, SpanKind, startSpan, tracingOn, withActiveSpan, type Span } from '../lib/tracing';

const spans = new WeakMap<FastifyRequest, Span>();

/**
 * One server span per request the process answers (lib/tracing.ts), active while the request
 * runs, so its database queries and outgoing calls are its children. Registered only with
 * tracing on: off, the app has no hook of it. The span carries the route pattern, never the
 * URL: some paths hold a secret (the Kommo webhook's) and query strings may hold data.
 */
export function registerTracing(app: FastifyInstance) {
  if (!tracingOn()) return;
  app.addHook('onRequest', (request, _reply, done) => {
    const span = startSpan(request.method, {
      kind: SpanKind.SERVER,
      parent: extractParent(request.headers),
      attributes: {
        'http.request.method': request.method,
        'url.scheme': request.protocol,
        'network.protocol.version': request.raw.httpVersion,
        'client.address': request.ip,
      },
    });
    if (!span) return done();
    spans.set(request, span);
    // Every later hook and the handler run inside this call: they see the span as active.
    withActiveSpan(span, done);
  });
  app.addHook('onResponse', (request, reply, done) => {
    finish(request, reply.statusCode);
    done();
  });
  app.addHook('onRequestAbort', (request, done) => {
    finish(request, null);
    done();
  });
}

function finish(request: FastifyRequest, statusCode: number | null) {
  const span = spans.get(request);
  if (!span) return;
  spans.delete(request);
  const route = request.routeOptions.url;
  if (route) {
    span.setAttribute('http.route', route);
    span.updateName(`${request.method} ${route}`);
  }
  if (statusCode === null) failSpan(span, undefined, 'aborted');
  else {
    span.setAttribute('http.response.status_code', statusCode);
    // For a server, only its own failures (5xx) mark the span as failed.
    if (statusCode >= 500) failSpan(span, undefined, String(statusCode));
  }
  span.end();
}
