// A process that records every module it loads (a resolve hook). It starts tracing as the
// server does without OTEL_EXPORTER_OTLP_ENDPOINT, builds the app and answers one request
// through it; then starts tracing with an endpoint. It prints what it saw each time as one
// JSON line: whether tracing is on, whether a span records, the @opentelemetry modules loaded.
// Run with `node --import tsx`.
import { mkdtempSync, readFileSync } from 'node:fs';
import { register } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const file = join(mkdtempSync(join(tmpdir(), 'masivo-tracing-')), 'loaded.txt');
const hook = `
import { appendFileSync } from 'node:fs';
let file;
export function initialize(data) { file = data.file; }
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(file, result.url + '\\n');
  return result;
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`, import.meta.url, { data: { file } });

const { trace } = await import('@opentelemetry/api');
const { startTracing, tracingOn } = await import('../../src/lib/tracing');
const { createTestApp, testConfig } = await import('./app');

const otel = () =>
  [...new Set(readFileSync(file, 'utf8').split('\n'))]
    .map((url) => /node_modules\/(@opentelemetry\/[^/]+)\//.exec(url)?.[1])
    .filter((name): name is string => !!name)
    .filter((name, i, all) => all.indexOf(name) === i)
    .sort();

// Off: no endpoint, as a server started without the variable.
const off = await startTracing(testConfig());
const t = await createTestApp();
const res = await t.app.inject({ method: 'GET', url: '/api/health' });
const offReport = { enabled: off.enabled, on: tracingOn(), status: res.statusCode, recording: trace.getTracer('probe').startSpan('probe').isRecording(), loaded: otel() };
await t.close();

// On (the control: the same hook sees the SDK once it is loaded).
const on = await startTracing(testConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: process.env.TRACING_CHILD_ENDPOINT ?? 'http://127.0.0.1:9' }));
const onReport = { enabled: on.enabled, on: tracingOn(), recording: trace.getTracer('probe').startSpan('probe').isRecording(), loaded: otel() };
await on.shutdown(200);
process.stdout.write(JSON.stringify({ off: offReport, on: onReport }) + '\n');
