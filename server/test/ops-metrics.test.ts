import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/db/sql';
import { campaignRollups } from '../src/engine/campaign-rollups';
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

  it("times each fold of the rollups job and says how old the oldest change not yet folded is", async () => {
    // Gauges read from the database are cached for a second: each reading below waits it out.
    const scrape = async () => {
      await new Promise((res) => setTimeout(res, 1_100));
      return (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    };
    const value = (text: string, series: string) => {
      const line = text.split('\n').find((l) => l.startsWith(`${series} `));
      return line === undefined ? undefined : Number(line.slice(series.length + 1));
    };
    const job = campaignRollups(t.ctx);
    const pass = () => job.run(new AbortController().signal);

    const { userId } = await t.signUp();
    const [c] = await rowsOf<{ id: number }>(
      t.ctx.db,
      sql`insert into campaigns (user_id, name, status, filters, started_at, created_at, updated_at)
          values (${userId}, 'Métricas', 'completed', '{}'::jsonb, now() - interval '2 minutes', now() - interval '2 minutes', now() - interval '2 minutes')
          returning id`,
    );
    const id = Number(c!.id);

    // Never folded: its change is as old as the campaign.
    let text = await scrape();
    expect(value(text, 'masivo_rollup_lag_seconds')).toBeGreaterThanOrEqual(119);
    expect(value(text, 'masivo_rollup_fold_duration_seconds_count')).toBe(0);

    await pass();
    text = await scrape();
    expect(value(text, 'masivo_rollup_lag_seconds')).toBe(0);
    expect(value(text, 'masivo_rollup_fold_duration_seconds_count')).toBe(1);
    expect(value(text, 'masivo_rollup_fold_duration_seconds_sum')).toBeGreaterThan(0);
    expect(value(text, 'masivo_rollup_folds_total{result="ok"}')).toBe(1);

    // The campaign moves (a reply bumps only its counter) after a fold and a pass a minute old: not folded yet.
    await t.ctx.db.execute(sql`update campaign_rollups set folded_at = now() - interval '60 seconds' where campaign_id = ${id}`);
    await t.ctx.db.execute(sql`update campaign_rollup_passes set passed_at = now() - interval '60 seconds'`);
    await t.ctx.db.execute(sql`update campaigns set replied_count = replied_count + 1 where id = ${id}`);
    text = await scrape();
    const lag = value(text, 'masivo_rollup_lag_seconds')!;
    expect(lag).toBeGreaterThanOrEqual(59);
    expect(lag).toBeLessThan(119);

    await pass();
    text = await scrape();
    expect(value(text, 'masivo_rollup_lag_seconds')).toBe(0);
    expect(value(text, 'masivo_rollup_fold_duration_seconds_count')).toBe(2);
    expect(value(text, 'masivo_rollup_folds_total{result="ok"}')).toBe(2);
    expect(text).toMatch(/^masivo_rollup_fold_duration_seconds_bucket\{le="0.01"\} \d+$/m);
    expect(text).toMatch(/^masivo_rollup_fold_duration_seconds_bucket\{le="30"\} 2$/m);
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
