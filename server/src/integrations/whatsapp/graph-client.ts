import { Agent, request } from 'undici';
import { isTimeout } from '../timeouts';
import { endHttpClientSpan, httpClientAttributes, SpanKind, startSpan, tracingOn } from '../../lib/tracing';
import { ACCESS_TOKEN_PATTERN } from '@masivo/contract/common';
import { graphErrorFrom, graphNetworkError, graphTimeoutError, GraphApiError, type GraphErrorBody } from './graph-errors';

/**
 * The one way this server calls Meta's Graph API: keep-alive pool, explicit timeouts, and
 * every failure turned into a GraphApiError with a Spanish message. The access token only
 * travels in the Authorization header; it never appears in a URL, an error or a log line.
 */
const CONNECT_TIMEOUT_MS = 10_000;
const DEFAULT_TIMEOUT_MS = 20_000;

export interface GraphRequest {
  method: 'GET' | 'POST' | 'DELETE';
  /** Path below the versioned base, e.g. `/123/message_templates`. */
  path: string;
  token: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  timeoutMs?: number;
}

export interface GraphClient {
  call<T>(req: GraphRequest): Promise<T>;
}

/** `baseUrl` is WHATSAPP_GRAPH_URL, version included (https://graph.facebook.com/v23.0). */
export function createGraphClient(baseUrl: string): GraphClient {
  const base = baseUrl.replace(/\/+$/, '');
  // One keep-alive pool per client, and one client per process (AppContext.graph).
  const agent = new Agent({
    connect: { timeout: CONNECT_TIMEOUT_MS },
    headersTimeout: DEFAULT_TIMEOUT_MS,
    bodyTimeout: DEFAULT_TIMEOUT_MS,
    keepAliveTimeout: 30_000,
    connections: 16,
  });
  return {
    async call<T>(req: GraphRequest): Promise<T> {
      const url = new URL(base + req.path);
      for (const [key, value] of Object.entries(req.query ?? {})) {
        if (value !== undefined && value !== '') url.searchParams.set(key, String(value));
      }
      // A token that cannot be an HTTP header value (stored before tokens were validated) is
      // refused here, before it reaches the connection pool every tenant shares.
      if (!ACCESS_TOKEN_PATTERN.test(req.token)) throw unusableTokenError();
      const timeoutMs = req.timeoutMs ?? DEFAULT_TIMEOUT_MS;
      // A client span per call (lib/tracing.ts); null with tracing off.
      const span = tracingOn()
        ? startSpan(req.method, { kind: SpanKind.CLIENT, attributes: httpClientAttributes(req.method, url, 'whatsapp-graph') })
        : null;
      let res;
      try {
        res = await request(url, {
          method: req.method,
          dispatcher: agent,
          headers: {
            authorization: `Bearer ${req.token}`,
            accept: 'application/json',
            ...(req.body !== undefined ? { 'content-type': 'application/json' } : {}),
          },
          body: req.body !== undefined ? JSON.stringify(req.body) : undefined,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
          signal: AbortSignal.timeout(timeoutMs + 1_000),
        });
      } catch (err) {
        if (span) endHttpClientSpan(span, null, err);
        throw transportError(err, timeoutMs);
      }
      let text: string;
      try {
        text = await res.body.text();
      } catch (err) {
        if (span) endHttpClientSpan(span, null, err);
        throw transportError(err, timeoutMs);
      }
      if (span) endHttpClientSpan(span, res.statusCode);
      const json = parseJson(text);
      if (res.statusCode >= 200 && res.statusCode < 300) return (json ?? {}) as T;
      const errorBody = (json as { error?: GraphErrorBody } | null)?.error;
      throw graphErrorFrom(errorBody ?? { message: text.slice(0, 200) || undefined }, res.statusCode);
    },
  };
}

function unusableTokenError() {
  return new GraphApiError(
    'El token de acceso guardado no es válido (solo admite caracteres ASCII visibles): vuelve a ingresarlo en la cuenta.',
    400,
    190,
    null,
    null,
    null,
  );
}

function transportError(err: unknown, timeoutMs: number) {
  const e = err as { name?: string; code?: string; message?: string };
  if (isTimeout(err)) {
    return graphTimeoutError(Math.round(timeoutMs / 1000));
  }
  return graphNetworkError(e?.code ?? e?.message ?? 'error de red');
}

function parseJson(text: string): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
