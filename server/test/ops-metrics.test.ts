import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app';

/** GET /metrics: Prometheus text, protected, with the figures the operator alerts on. */
describe('/metrics', () => {
  let t: TestApp;
  let guarded: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    guarded = await createTestApp({ METRICS_TOKEN: 'metrics-token-0123456789' });
  });
  afterAll(async () => {
    await t.close();
    await guarded.close();
  });

  it('serves send, queue, lease, webhook, sync and HTTP latency figures', async () => {
    await t.app.inject({ method: 'GET', url: '/api/health' });
    t.ctx.metrics.sendOutcome(7, 'ok', null);
    t.ctx.metrics.sendOutcome(7, 'retry', 130429);
    t.ctx.metrics.sendOutcome(7, 'retry', null);
    t.ctx.metrics.webhooksApplied([new Date(Date.now() - 3_000)]);
    t.ctx.metrics.syncEnded('ok');
    await t.ctx.db.execute(sql`insert into webhook_events (payload, received_at) values ('{}'::jsonb, now() - interval '90 seconds')`);

    const res = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    const text = res.body;
    expect(text).toContain('masivo_whatsapp_sends_total{whatsapp_account="7",outcome="ok"} 1');
    expect(text).toContain('masivo_whatsapp_send_errors_total{whatsapp_account="7",code="130429"} 1');
    expect(text).toContain('masivo_whatsapp_send_errors_total{whatsapp_account="7",code="transport"} 1');
    expect(text).toMatch(/masivo_http_request_duration_seconds_count\{method="GET",route="\/api\/health",status_code="200"\} 1/);
    expect(text).toContain('masivo_webhook_lag_seconds_count 1');
    expect(text).toContain('masivo_webhook_backlog 1');
    expect(Number(/^masivo_webhook_oldest_age_seconds (\S+)$/m.exec(text)?.[1])).toBeGreaterThanOrEqual(89);
    expect(text).toContain('masivo_kommo_syncs_total{result="ok"} 1');
    expect(text).toContain('masivo_database_up 1');
    for (const name of ['send_queue_depth', 'sender_leases', 'sync_leases', 'kommo_sync_progress_contacts', 'process_cpu_seconds_total']) {
      expect(text).toContain(`# TYPE masivo_${name}`);
    }
  });

  it('route patterns, not URLs, label latency (no series per id)', async () => {
    await t.app.inject({ method: 'GET', url: '/api/campaigns/123456' });
    const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(text).not.toContain('123456');
  });

  it('without METRICS_TOKEN only this machine may scrape, never through a proxy', async () => {
    const remote = await t.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '203.0.113.9' });
    expect(remote.statusCode).toBe(403);
    expect(remote.json().error).toMatch(/METRICS_TOKEN/);
    const proxied = await t.app.inject({ method: 'GET', url: '/metrics', headers: { 'x-forwarded-for': '203.0.113.9' } });
    expect(proxied.statusCode).toBe(403);
  });

  it('with METRICS_TOKEN the bearer token is required, from anywhere', async () => {
    const none = await guarded.app.inject({ method: 'GET', url: '/metrics' });
    expect(none.statusCode).toBe(401);
    const wrong = await guarded.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer metrics-token-0123456780' } });
    expect(wrong.statusCode).toBe(401);
    const ok = await guarded.app.inject({
      method: 'GET',
      url: '/metrics',
      remoteAddress: '203.0.113.9',
      headers: { authorization: 'Bearer metrics-token-0123456789' },
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toContain('masivo_database_up 1');
  });
});
