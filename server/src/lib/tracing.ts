import { createHmac } from 'node:crypto';
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type SpanContext,
  type Tracer,
} from '@opentelemetry/api';
import type { Config } from '../config';

/**
 * OpenTelemetry traces (docs/OPERATIONS.md, "Tracing"). Off unless OTEL_EXPORTER_OTLP_ENDPOINT
 * is set: then `startTracing` loads the SDK and the OTLP/HTTP exporter (dynamic imports, so a
 * process without the variable never loads them) and registers them with @opentelemetry/api.
 *
 * Spans are made by hand at our own choke points (Fastify hooks, the pg pool's clients, the
 * Graph and Kommo clients, the sender and the webhook inbox) rather than by require hooks,
 * which do not see ESM run by tsx. Each of them asks `tracingOn()` first, so with tracing off
 * the hot paths build no attributes and no span objects.
 *
 * The tracer provider, the context manager and the propagator are process-wide by the API's
 * design (a global registry), so this module holds the one tracer a process has rather than
 * AppContext; `startServer` starts it before anything else and stops it last.
 */

export { SpanKind };
export type { Span, SpanContext };

let tracer: Tracer | null = null;
/** HMAC key of recipient trace ids: derived from APP_SECRET, which every process shares. */
let recipientKey: Buffer | null = null;

/** True while an exporter is configured; every instrumented place asks this first. */
export function tracingOn(): boolean {
  return tracer !== null;
}

export interface Tracing {
  readonly enabled: boolean;
  /** Exports what is buffered now (tests; the shutdown does it too). */
  forceFlush(): Promise<void>;
  /**
   * Exports what is buffered and unregisters the SDK; tracing is off afterwards. Waits at most
   * `budgetMs` for the collector: an unreachable one must not hold up the process's exit.
   */
  shutdown(budgetMs?: number): Promise<void>;
}

/** How long the shutdown waits for the last spans' export (SHUTDOWN_BUDGET_MS is 8 s in all). */
const SHUTDOWN_EXPORT_MS = 2_000;

const OFF: Tracing = { enabled: false, forceFlush: async () => undefined, shutdown: async () => undefined };

type TracingConfig = Pick<Config, 'OTEL_EXPORTER_OTLP_ENDPOINT' | 'OTEL_SERVICE_NAME' | 'APP_SECRET'>;

/**
 * Starts tracing when the configuration names an OTLP endpoint; otherwise returns a handle
 * that does nothing, and not one SDK module is loaded. Spans go to `<endpoint>/v1/traces`
 * (OTLP/HTTP, JSON), batched; OTEL_EXPORTER_OTLP_HEADERS and the exporter's other standard
 * variables apply as the SDK reads them.
 */
export async function startTracing(config: TracingConfig): Promise<Tracing> {
  const endpoint = config.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint) return OFF;
  if (tracer) throw new Error('El trazado ya está iniciado en este proceso');
  const [{ NodeTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { resourceFromAttributes }] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
  ]);
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': config.OTEL_SERVICE_NAME }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: `${endpoint.replace(/\/+$/, '')}/v1/traces` }))],
  });
  // The AsyncLocalStorage context manager and the W3C trace-context propagator.
  provider.register();
  tracer = provider.getTracer('masivo');
  recipientKey = createHmac('sha256', config.APP_SECRET).update('masivo:recipient-trace').digest();
  let stopped: Promise<void> | undefined;
  return {
    enabled: true,
    forceFlush: () => provider.forceFlush(),
    shutdown: (budgetMs = SHUTDOWN_EXPORT_MS) =>
      (stopped ??= (async () => {
        tracer = null;
        recipientKey = null;
        let timer: NodeJS.Timeout | undefined;
        try {
          await Promise.race([provider.shutdown(), new Promise((resolve) => (timer = setTimeout(resolve, budgetMs)))]);
        } finally {
          clearTimeout(timer);
          trace.disable();
          context.disable();
          propagation.disable();
        }
      })()),
  };
}

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  links?: Link[];
  /** The parent; the active context when omitted. */
  parent?: Context;
}

/** A started span, or null with tracing off. The caller ends it (`endSpan`). */
export function startSpan(name: string, opts: SpanOptions = {}): Span | null {
  if (!tracer) return null;
  return tracer.startSpan(name, { kind: opts.kind, attributes: opts.attributes, links: opts.links }, opts.parent ?? context.active());
}

/** Marks the span failed (an exception, a refused answer) without ending it. */
export function failSpan(span: Span, err: unknown, errorType?: string) {
  const e = err as { name?: string; message?: string } | undefined;
  span.setAttribute('error.type', errorType ?? e?.name ?? 'Error');
  span.setStatus({ code: SpanStatusCode.ERROR, message: e?.message?.slice(0, 300) });
}

/**
 * Runs `work` inside a span that is the active one for everything it awaits (database queries,
 * HTTP calls), ending it when the work settles; a thrown error marks the span failed. With
 * tracing off, `work` runs with null and nothing else happens; the attributes are asked for
 * only when a span is made.
 */
export function inSpan<T>(
  name: string,
  opts: Omit<SpanOptions, 'attributes'> & { attributes?: () => Attributes },
  work: (span: Span | null) => Promise<T>,
): Promise<T> {
  // Not an async function: off, the work's own promise is returned, with no extra ticks.
  if (!tracer) return work(null);
  return spanned(name, opts, work);
}

async function spanned<T>(
  name: string,
  opts: Omit<SpanOptions, 'attributes'> & { attributes?: () => Attributes },
  work: (span: Span | null) => Promise<T>,
): Promise<T> {
  const span = startSpan(name, { ...opts, attributes: opts.attributes?.() })!;
  try {
    return await context.with(trace.setSpan(opts.parent ?? context.active(), span), () => work(span));
  } catch (err) {
    failSpan(span, err);
    throw err;
  } finally {
    span.end();
  }
}

/** Runs `fn` with `span` as the active span (children made inside it are its children). */
export function withActiveSpan<T>(span: Span, fn: () => T): T {
  return context.with(trace.setSpan(context.active(), span), fn);
}

/** The context of an incoming request's `traceparent` header, when it has one. */
export function extractParent(headers: Record<string, string | string[] | undefined>): Context {
  return propagation.extract(ROOT_CONTEXT, headers);
}

/**
 * The trace of one recipient of one campaign. Its id is derived from the pair (keyed with the
 * deployment's secret, so two deployments never share one), and so is the id of a parent span
 * that is never exported: every span about the recipient (each send and its Graph call, each
 * status applied by the webhook inbox, in any process) is a child of that parent, so they land
 * in one trace without storing a thing. Backends show the trace with a missing root.
 */
export function recipientContext(campaignId: number, recipientId: number): Context {
  const digest = createHmac('sha256', recipientKey ?? 'off').update(`${campaignId}:${recipientId}`).digest('hex');
  const parent: SpanContext = {
    traceId: digest.slice(0, 32),
    spanId: digest.slice(32, 48),
    traceFlags: TraceFlags.SAMPLED,
    isRemote: true,
  };
  return trace.setSpanContext(ROOT_CONTEXT, parent);
}

/** The span context of the active span, for a link from spans made elsewhere later. */
export function activeSpanContext(): SpanContext | undefined {
  return trace.getSpan(context.active())?.spanContext();
}

/** Semantic-convention attributes of an outgoing HTTP call (no query string: it may carry data). */
export function httpClientAttributes(method: string, url: URL, peer: string): Attributes {
  return {
    'http.request.method': method,
    'server.address': url.hostname,
    'server.port': url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80,
    'url.scheme': url.protocol.replace(':', ''),
    'url.path': url.pathname,
    'peer.service': peer,
  };
}

/** Ends an HTTP client span with its answer's status (4xx and 5xx are failures of the call). */
export function endHttpClientSpan(span: Span, statusCode: number | null, err?: unknown) {
  if (statusCode !== null) {
    span.setAttribute('http.response.status_code', statusCode);
    if (statusCode >= 400) failSpan(span, undefined, String(statusCode));
  } else {
    failSpan(span, err, (err as { code?: string } | undefined)?.code);
  }
  span.end();
}
