import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKommoSim, type KommoSim } from '@masivo/simulators/kommo';
import { createKommoClient } from '../src/integrations/kommo/client';
import { startTracing, type Tracing } from '../src/lib/tracing';
import { testConfig } from './helpers/app';
import { startEngineBed, waitFor, type EngineBed } from './helpers/engine-bed';
import { TestReceiver } from './helpers/webhook-receiver';

/**
 * OpenTelemetry traces (lib/tracing.ts): a local OTLP/HTTP receiver gets the spans of a
 * request, a small campaign sent to the WhatsApp simulator with its status webhooks, and a
 * Kommo call; and a process without OTEL_EXPORTER_OTLP_ENDPOINT never loads the SDK.
 */

const A = { phoneNumberId: '7001', wabaId: '8001', token: 'tok-trace', rate: 20 };
const onPostgres = !!process.env.TEST_DATABASE_URL;

type Value = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: Array<{ key: string; value: Value }>;
  links?: Array<{ traceId: string; spanId: string }>;
}
interface Span {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attrs: Record<string, string | number | boolean | undefined>;
  links: Array<{ traceId: string; spanId: string }>;
  service: string;
}
/** OTLP's SpanKind numbers (SPAN_KIND_SERVER = 2 …). */
const KIND = { INTERNAL: 1, SERVER: 2, CLIENT: 3, PRODUCER: 4 };

const valueOf = (v: Value) => v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.boolValue ?? v.doubleValue));

let receiver: TestReceiver;
let tracing: Tracing;
let bed: EngineBed;
let kommo: KommoSim;

/** Every span the receiver got, flattened from the OTLP/JSON bodies. */
function spans(): Span[] {
  const out: Span[] = [];
  for (const r of receiver.at('/v1/traces')) {
    const body = JSON.parse(r.body) as {
      resourceSpans: Array<{ resource: { attributes: Array<{ key: string; value: Value }> }; scopeSpans: Array<{ spans: OtlpSpan[] }> }>;
    };
    for (const rs of body.resourceSpans) {
      const service = String(valueOf(rs.resource.attributes.find((a) => a.key === 'service.name')!.value));
      for (const ss of rs.scopeSpans) {
        for (const s of ss.spans) {
          out.push({
            traceId: s.traceId,
            spanId: s.spanId,
            parentSpanId: s.parentSpanId ?? '',
            name: s.name,
            kind: s.kind,
            attrs: Object.fromEntries((s.attributes ?? []).map((a) => [a.key, valueOf(a.value)])),
            links: s.links ?? [],
            service,
          });
        }
      }
    }
  }
  return out;
}

describe('tracing off', () => {
  it('loads no OpenTelemetry SDK and records nothing without OTEL_EXPORTER_OTLP_ENDPOINT', async () => {
    const child = fileURLToPath(new URL('./helpers/tracing-child.ts', import.meta.url));
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', child], {
      env: { PATH: process.env.PATH, TEST_DATABASE_URL: process.env.TEST_DATABASE_URL ?? '' },
      timeout: 90_000,
    });
    const report = JSON.parse(stdout.trim().split('\n').pop()!);
    expect(report.off).toEqual({ enabled: false, on: false, status: 200, recording: false, loaded: ['@opentelemetry/api'] });
    // The control: the same process sees the SDK once an endpoint is set.
    expect(report.on.enabled).toBe(true);
    expect(report.on.recording).toBe(true);
    expect(report.on.loaded).toEqual(expect.arrayContaining(['@opentelemetry/sdk-trace-node', '@opentelemetry/exporter-trace-otlp-http']));
  }, 120_000);
});

describe('tracing on', () => {
  let campaignId = 0;
  let requestStatus = 0;

  beforeAll(async () => {
    receiver = await new TestReceiver().listen();
    tracing = await startTracing(testConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url('/'), OTEL_SERVICE_NAME: 'masivo-test' }));
    expect(tracing.enabled).toBe(true);
    bed = await startEngineBed({ numbers: [A], contacts: 3 });
    const started = await bed.launch(0, {}, 'Campaña trazada');
    campaignId = started.id;
    await waitFor(
      () => bed.campaign(campaignId),
      (c) => c.status === 'completed' && c.messages_sent > 0 && c.read_count === c.messages_sent,
      20_000,
      'campaign sent and read',
    );
    // Statuses are applied by the inbox a moment after the counters show them: let it finish.
    await new Promise((r) => setTimeout(r, 300));
    const res = await bed.t.app.inject({ method: 'GET', url: `/api/campaigns/${campaignId}`, headers: bed.headers });
    requestStatus = res.statusCode;
    kommo = await startKommoSim({ rps: 50, accounts: [] });
    kommo.addAccount({ subdomain: 'trazas', token: 'tok-trazas', contacts: 3 });
    await createKommoClient({ baseUrlTemplate: kommo.baseUrlTemplate, rps: 50 }).account({ subdomain: 'trazas', accessToken: 'tok-trazas' });
    await tracing.forceFlush();
  }, 60_000);

  afterAll(async () => {
    await bed?.close();
    await kommo?.close();
    await tracing?.shutdown();
    await receiver?.close();
  });

  it('exports over OTLP/HTTP as JSON, under OTEL_SERVICE_NAME', () => {
    const posts = receiver.at('/v1/traces');
    expect(posts.length).toBeGreaterThan(0);
    expect(posts[0].headers['content-type']).toContain('application/json');
    expect(new Set(spans().map((s) => s.service))).toEqual(new Set(['masivo-test']));
  });

  it('a request the server answers is a server span named by its route, with its status', () => {
    expect(requestStatus).toBe(200);
    const server = spans().find((s) => s.kind === KIND.SERVER && s.attrs['http.route'] === '/api/campaigns/:id');
    expect(server).toBeDefined();
    expect(server!.name).toBe('GET /api/campaigns/:id');
    expect(server!.attrs).toMatchObject({ 'http.request.method': 'GET', 'http.response.status_code': 200 });
    // The route pattern only: no URL with ids or secrets.
    expect(JSON.stringify(server!.attrs)).not.toContain(`/api/campaigns/${campaignId}`);
  });

  it('each send of a recipient is a span with campaign.id and recipient.id whose child is the Graph call', () => {
    const all = spans();
    const sends = all.filter((s) => s.name === 'campaign.send' && s.attrs['campaign.id'] === campaignId);
    expect(sends.length).toBeGreaterThan(0);
    for (const send of sends) {
      expect(send.attrs['recipient.id']).toEqual(expect.any(Number));
      expect(send.attrs['send.outcome']).toBe('ok');
      const graph = all.find((s) => s.parentSpanId === send.spanId && s.kind === KIND.CLIENT);
      expect(graph, `Graph span under send ${send.spanId}`).toBeDefined();
      expect(graph!.traceId).toBe(send.traceId);
      expect(graph!.attrs).toMatchObject({
        'http.request.method': 'POST',
        'http.response.status_code': 200,
        'server.address': '127.0.0.1',
        'peer.service': 'whatsapp-graph',
        'url.path': expect.stringContaining(`/${A.phoneNumberId}/messages`),
      });
      // The claim that took the recipient is linked.
      const claim = all.find((s) => s.name === 'campaign.claim' && s.spanId === send.links[0]?.spanId);
      expect(claim?.attrs['campaign.id']).toBe(campaignId);
    }
    // Different recipients, different traces.
    expect(new Set(sends.map((s) => s.traceId)).size).toBe(new Set(sends.map((s) => s.attrs['recipient.id'])).size);
  });

  it("a status the webhook inbox applies lands in the send's trace, with the same campaign.id and recipient.id", () => {
    const all = spans();
    const sends = all.filter((s) => s.name === 'campaign.send' && s.attrs['campaign.id'] === campaignId);
    const statuses = all.filter((s) => s.name === 'campaign.status' && s.attrs['campaign.id'] === campaignId);
    expect(statuses.length).toBeGreaterThan(0);
    for (const send of sends) {
      const mine = statuses.filter((s) => s.attrs['recipient.id'] === send.attrs['recipient.id']);
      // The simulator reports sent, delivered and read.
      expect(new Set(mine.map((s) => s.attrs['whatsapp.status']))).toEqual(new Set(['sent', 'delivered', 'read']));
      for (const status of mine) {
        expect(status.traceId).toBe(send.traceId);
        // Siblings under the recipient's (derived, unexported) parent.
        expect(status.parentSpanId).toBe(send.parentSpanId);
        expect(status.attrs['messaging.message.id']).toBe(send.attrs['messaging.message.id']);
        // Linked to the inbox batch that applied it.
        const batch = all.find((s) => s.name === 'webhook_inbox.batch' && s.spanId === status.links[0]?.spanId);
        expect(batch?.attrs['webhook.events']).toEqual(expect.any(Number));
      }
    }
    // The POST of each status webhook is a server span too.
    expect(all.some((s) => s.kind === KIND.SERVER && s.attrs['http.route'] === '/api/webhooks/whatsapp')).toBe(true);
  });

  it('a Kommo call is a client span', () => {
    const call = spans().find((s) => s.kind === KIND.CLIENT && s.attrs['peer.service'] === 'kommo');
    expect(call).toBeDefined();
    expect(call!.attrs).toMatchObject({ 'http.request.method': 'GET', 'http.response.status_code': 200, 'url.path': expect.stringMatching(/\/api\/v4\/account$/) });
  });

  it.skipIf(!onPostgres)('PostgreSQL queries are client spans, children of the request that made them (PGlite is not traced: run with TEST_DATABASE_URL)', () => {
    const all = spans();
    const queries = all.filter((s) => s.attrs['db.system'] === 'postgresql');
    expect(queries.length).toBeGreaterThan(0);
    for (const q of queries) {
      expect(q.kind).toBe(KIND.CLIENT);
      expect(String(q.attrs['db.query.text']).length).toBeGreaterThan(0);
      expect(q.attrs['server.address']).toBe('127.0.0.1');
    }
    const server = all.find((s) => s.kind === KIND.SERVER && s.attrs['http.route'] === '/api/campaigns/:id')!;
    const under = queries.filter((q) => q.parentSpanId === server.spanId);
    expect(under.length).toBeGreaterThan(0);
    // Parameters travel apart: the campaign's id is not in the statement text.
    expect(under.some((q) => /\$\d/.test(String(q.attrs['db.query.text'])))).toBe(true);
  });
});
