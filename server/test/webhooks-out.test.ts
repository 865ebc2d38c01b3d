import { sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContext, type AppContext } from '../src/context';
import { rowsOf } from '../src/db/sql';
import { resolveEngineOptions } from '../src/engine/campaigns/options';
import { WebhookInbox } from '../src/engine/campaigns/webhook-inbox';
import { startWebhookDeliveries } from '../src/engine/webhook-deliveries/index';
import type { WebhookDeliveryOptions } from '../src/engine/webhook-deliveries/options';
import { DEFAULT_WEBHOOK_DELIVERY_OPTIONS } from '../src/engine/webhook-deliveries/options';
import { JobRunner } from '../src/jobs/index';
import { pauseCampaign } from '../src/services/campaigns/pause-campaign';
import { createCampaign } from '../src/services/campaigns/create-campaign';
import { createTestApp, testConfig, type TestApp } from './helpers/app';
import { seedCampaignWorld, type CampaignWorld } from './helpers/campaign-fixtures';
import { APP_SECRET, waitFor } from './helpers/engine-bed';
import { buttonMessage, textMessage, unix } from './fixtures/meta-inbound';
import { postWebhook } from './helpers/webhook';
import { TestReceiver, type Received } from './helpers/webhook-receiver';

/**
 * Outbound webhooks end to end: endpoints per organisation, signed deliveries verified with the
 * `standardwebhooks` package and the secret shown once, retries that survive a restart of the
 * console with nothing lost, 410 and three days of failures disabling the endpoint, SSRF refusals,
 * secret rotation, tenant isolation, `message.status` in batches of at most 100, and
 * `reply.received` with the button tapped.
 */
let t: TestApp;
let receiver: TestReceiver;
const FAST: Partial<WebhookDeliveryOptions> = {
  retryDelaysMs: [150, 300, 500, 800, 1000, 1000, 1000],
  pollMs: 50,
  fanoutEveryMs: 50,
  stopTimeoutMs: 500,
};

type User = Awaited<ReturnType<TestApp['signUp']>>;

beforeAll(async () => {
  t = await createTestApp({ WEBHOOKS_ALLOW_PRIVATE_HOSTS: '1', WHATSAPP_APP_SECRET: APP_SECRET });
  receiver = await new TestReceiver().listen();
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

/** A worker process's outbound webhooks over `ctx` (a second context over the same database is a restarted console). */
async function startWorker(ctx: AppContext, opts: Partial<WebhookDeliveryOptions> = {}) {
  const runner = new JobRunner({ db: ctx.db, log: ctx.log, owner: ctx.instanceId, stopTimeoutMs: 500 });
  const work = startWebhookDeliveries(ctx, runner, { ...FAST, ...opts });
  await runner.start();
  return {
    async stop() {
      await work.stop();
      await runner.stop();
    },
  };
}

async function createEndpoint(user: User, path: string, events: string[]) {
  const res = await t.app.inject({ method: 'POST', url: '/api/webhook-endpoints', headers: user.headers, payload: { url: receiver.url(path), events } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: number; secret: string; url: string };
}

const endpoint = async (user: User, id: number) =>
  ((await t.app.inject({ method: 'GET', url: '/api/webhook-endpoints', headers: user.headers })).json() as Array<Record<string, unknown>>).find((e) => e.id === id)!;

/** Every received request must verify with the secret (the package checks the signature and the timestamp). */
function verified(secret: string, r: Received) {
  const headers = { 'webhook-id': String(r.headers['webhook-id']), 'webhook-timestamp': String(r.headers['webhook-timestamp']), 'webhook-signature': String(r.headers['webhook-signature']) };
  return new Webhook(secret).verify(r.body, headers) as { type: string; timestamp: string; data: Record<string, unknown> };
}

describe('endpoints', () => {
  it('creates an endpoint with a whsec_ secret shown once, never again and never logged', async () => {
    const owner = await t.signUp();
    const created = await createEndpoint(owner, '/created', ['campaign.started']);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
    expect(Buffer.from(created.secret.slice(6), 'base64').length).toBeGreaterThanOrEqual(24);
    const list = await t.app.inject({ method: 'GET', url: '/api/webhook-endpoints', headers: owner.headers });
    expect(list.body).not.toContain(created.secret);
    expect(list.json()[0]).not.toHaveProperty('secret');
    const [stored] = await rowsOf<{ secret_sealed: string }>(t.ctx.db, sql`select secret_sealed from webhook_endpoints where id = ${created.id}`);
    expect(stored!.secret_sealed).not.toContain(created.secret.slice(6));
    const log = await rowsOf<{ action: string; changes: unknown }>(t.ctx.db, sql`select action, changes from activity_log where target_type = 'webhook_endpoint'`);
    expect(log.map((l) => l.action)).toContain('webhook.created');
    expect(JSON.stringify(log)).not.toContain(created.secret.slice(6));
  });

  it('refuses bad input with Spanish 400s and lets only webhooks.manage in', async () => {
    const owner = await t.signUp();
    const bad = await t.app.inject({ method: 'POST', url: '/api/webhook-endpoints', headers: owner.headers, payload: { url: 'https://a.example/x', events: [] } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatch(/evento/);
    const editor = await t.addMember(owner.userId, 'editor');
    const refused = await t.app.inject({ method: 'GET', url: '/api/webhook-endpoints', headers: editor.headers });
    expect(refused.statusCode).toBe(403);
  });

  it("another organisation's endpoint answers 404 on every route", async () => {
    const a = await t.signUp();
    const b = await t.signUp();
    const { id } = await createEndpoint(a, '/isolated', ['campaign.started']);
    const calls: Array<{ method: 'GET' | 'PATCH' | 'DELETE' | 'POST'; url: string; payload?: object }> = [
      { method: 'PATCH', url: `/api/webhook-endpoints/${id}`, payload: { enabled: false } },
      { method: 'GET', url: `/api/webhook-endpoints/${id}/deliveries` },
      { method: 'POST', url: `/api/webhook-endpoints/${id}/test` },
      { method: 'POST', url: `/api/webhook-endpoints/${id}/rotate-secret` },
      { method: 'POST', url: `/api/webhook-endpoints/${id}/deliveries/1/resend` },
      { method: 'DELETE', url: `/api/webhook-endpoints/${id}` },
    ];
    for (const c of calls) {
      const res = await t.app.inject({ ...c, headers: b.headers });
      expect(res.statusCode, `${c.method} ${c.url}`).toBe(404);
    }
    expect((await t.app.inject({ method: 'GET', url: '/api/webhook-endpoints', headers: b.headers })).json()).toEqual([]);
    expect(await endpoint(a, id)).toMatchObject({ enabled: true });
  });
});

describe('SSRF', () => {
  let strict: TestApp;
  let owner: User;
  beforeAll(async () => {
    strict = await createTestApp();
    owner = await strict.signUp();
  });
  afterAll(() => strict?.close());

  const create = (url: string) => strict.app.inject({ method: 'POST', url: '/api/webhook-endpoints', headers: owner.headers, payload: { url, events: ['campaign.started'] } });

  it('refuses private, loopback, link-local, unique-local and mapped addresses with a Spanish 422', async () => {
    for (const url of [
      'https://127.0.0.1/hook',
      'https://localhost/hook',
      'https://10.1.2.3/hook',
      'https://192.168.0.10/hook',
      'https://172.16.5.5/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/hook',
      'https://[fc00::1]/hook',
      'https://[fd12:3456::1]/hook',
      'https://[fe80::1]/hook',
      'https://[::ffff:127.0.0.1]/hook',
      'https://[::ffff:10.0.0.1]/hook',
    ]) {
      const res = await create(url);
      expect(res.statusCode, url).toBe(422);
      expect(res.json().error, url).toMatch(/dirección privada/);
    }
  });

  it('refuses plain http unless WEBHOOKS_ALLOW_PRIVATE_HOSTS=1', async () => {
    const res = await create('http://93.184.216.34/hook');
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toBe('La URL debe usar https://');
    const allowed = await t.app.inject({ method: 'POST', url: '/api/webhook-endpoints', headers: (await t.signUp()).headers, payload: { url: receiver.url('/http'), events: ['campaign.started'] } });
    expect(allowed.statusCode).toBe(201);
  });

  it('refuses at delivery time a name that now resolves to a private address (DNS)', async () => {
    const created = await create('https://93.184.216.34/hook');
    expect(created.statusCode, created.body).toBe(201);
    const { id } = created.json();
    await strict.ctx.db.execute(sql`update webhook_endpoints set url = 'https://rebind.masivo.test/hook' where id = ${id}`);
    const worker = await startWorker(strict.ctx, { resolve: async () => [{ address: '127.0.0.1', family: 4 }] });
    try {
      expect((await strict.app.inject({ method: 'POST', url: `/api/webhook-endpoints/${id}/test`, headers: owner.headers })).statusCode).toBe(202);
      const page = await waitFor(
        async () => (await strict.app.inject({ method: 'GET', url: `/api/webhook-endpoints/${id}/deliveries`, headers: owner.headers })).json(),
        (p) => p.items[0]?.attempts >= 1,
        10_000,
        'a refused attempt',
      );
      expect(page.items[0]).toMatchObject({ state: 'pending', last_status_code: null, last_error: expect.stringMatching(/dirección privada/) });
      expect(page.items[0].attempt_log[0]).toMatchObject({ status_code: null, error: expect.stringMatching(/dirección privada/) });
    } finally {
      await worker.stop();
    }
  });

  it('does not follow a redirect (to a private address or anywhere)', async () => {
    const owner2 = await t.signUp();
    const { id } = await createEndpoint(owner2, '/redirect', ['campaign.started']);
    receiver.answer = (path) => (path === '/redirect' ? { status: 302, headers: { location: receiver.url('/private-target') } } : { status: 200 });
    const worker = await startWorker(t.ctx);
    try {
      await t.app.inject({ method: 'POST', url: `/api/webhook-endpoints/${id}/test`, headers: owner2.headers });
      await waitFor(async () => receiver.at('/redirect').length, (n) => n >= 1, 10_000, 'the redirecting answer');
      await new Promise((r) => setTimeout(r, 300));
      expect(receiver.at('/private-target')).toHaveLength(0);
      const page = (await t.app.inject({ method: 'GET', url: `/api/webhook-endpoints/${id}/deliveries`, headers: owner2.headers })).json();
      expect(page.items[0]).toMatchObject({ state: 'pending', last_status_code: 302 });
    } finally {
      await worker.stop();
      receiver.answer = () => ({ status: 200 });
    }
  });
});

describe('delivery', () => {
  it('every event arrives signed, none lost, across failures and a restart of the console; duplicates share their webhook-id', async () => {
    const owner = await t.signUp();
    const world = await seedCampaignWorld(t.ctx.db, t.ctx.secrets, owner.userId, { number: { phoneNumberId: '7101', wabaId: '8101', token: 'tok' } });
    const { id, secret } = await createEndpoint(owner, '/resilient', [
      'campaign.pending_approval',
      'campaign.started',
      'campaign.paused',
      'campaign.completed',
      'campaign.cancelled',
      'contact.opted_out',
      'contact.opted_in',
    ]);
    // The first two tries fail.
    receiver.answer = (path, n) => (path === '/resilient' && n < 2 ? { status: 500 } : { status: 200 });
    const first = await startWorker(t.ctx);
    const campaign = await createCampaign(t.ctx, owner.userId, {
      name: 'Promo julio',
      kommo_account_id: world.kommoAccountId,
      whatsapp_account_id: world.whatsappAccountId,
      template_id: world.templateId,
      filters: {},
    });
    const setStatus = (status: string) => t.ctx.db.execute(sql`update campaigns set status = ${status} where id = ${campaign.id}`);
    await setStatus('pending_approval');
    await setStatus('sending');
    await pauseCampaign(t.ctx, owner.userId, campaign.id, owner.userId);
    await waitFor(async () => receiver.at('/resilient').length, (n) => n >= 2, 10_000, 'two failed tries');

    // The receiver goes down and the console restarts meanwhile; events keep happening.
    await receiver.close();
    await first.stop();
    await setStatus('sending');
    await setStatus('completed');
    await setStatus('cancelled');
    const blacklisted = await t.app.inject({ method: 'POST', url: `/api/blacklist/${world.kommoAccountId}`, headers: owner.headers, payload: { phone: '+5491155550001' } });
    expect(blacklisted.statusCode, blacklisted.body).toBe(201);
    await t.app.inject({ method: 'DELETE', url: `/api/blacklist/${world.kommoAccountId}/${blacklisted.json().id}`, headers: owner.headers });
    const restarted = createContext(testConfig({ WEBHOOKS_ALLOW_PRIVATE_HOSTS: '1' }), t.ctx.database);
    const second = await startWorker(restarted);
    await new Promise((r) => setTimeout(r, 400)); // a try or two against the closed port
    await receiver.listen();
    try {
      const expected = [
        'campaign.pending_approval',
        'campaign.started',
        'campaign.paused',
        'campaign.started',
        'campaign.completed',
        'campaign.cancelled',
        'contact.opted_out',
        'contact.opted_in',
      ];
      const delivered = await waitFor(
        async () => receiver.at('/resilient').filter((r) => r.status === 200),
        (ok) => new Set(ok.map((r) => r.headers['webhook-id'])).size >= expected.length,
        20_000,
        'every event',
      );
      const all = receiver.at('/resilient');
      const events = all.map((r) => ({ id: String(r.headers['webhook-id']), status: r.status, payload: verified(secret, r) }));
      const unique = new Map(events.filter((e) => e.status === 200).map((e) => [e.id, e.payload]));
      expect(unique.size).toBe(expected.length);
      expect([...unique.values()].map((p) => p.type).sort()).toEqual([...expected].sort());
      // The failed tries were sent again under the same webhook-id, with the same body.
      for (const failed of events.filter((e) => e.status === 500)) {
        const again = events.find((e) => e.status === 200 && e.id === failed.id);
        expect(again?.payload).toEqual(failed.payload);
      }
      expect(delivered.length).toBeGreaterThanOrEqual(expected.length);
      const paused = [...unique.values()].find((p) => p.type === 'campaign.paused')!;
      expect(paused.data).toMatchObject({ campaign_id: campaign.id, status: 'paused', previous_status: 'sending', paused_by: { origin: 'operator', user_id: owner.userId } });
      const optedOut = [...unique.values()].find((p) => p.type === 'contact.opted_out')!;
      expect(optedOut.data).toMatchObject({ phone: '+5491155550001', origin: 'manual' });
      // The receiver answered before the console recorded the answer: wait for the log.
      const page = await waitFor(
        async () => (await t.app.inject({ method: 'GET', url: `/api/webhook-endpoints/${id}/deliveries`, headers: owner.headers })).json(),
        (p) => p.items.length === expected.length && p.items.every((d: { state: string }) => d.state === 'delivered'),
        10_000,
        'every delivery recorded as delivered',
      );
      const retried = page.items.filter((d: { attempts: number }) => d.attempts > 1);
      expect(retried.length).toBeGreaterThanOrEqual(1);
      type Attempt = { status_code: number | null; error: string | null };
      const with500 = retried.find((d: { attempt_log: Attempt[] }) => d.attempt_log.some((a) => a.status_code === 500));
      expect(with500.attempt_log[0]).toMatchObject({ status_code: 200, response_excerpt: 'ok', duration_ms: expect.any(Number) });
      expect(with500.attempt_log.at(-1)).toMatchObject({ status_code: 500, response_excerpt: 'error' });
    } finally {
      await second.stop();
      receiver.answer = () => ({ status: 200 });
    }
  });

  it('a 410 disables the endpoint with its reason', async () => {
    const owner = await t.signUp();
    const { id } = await createEndpoint(owner, '/gone', ['campaign.started']);
    receiver.answer = (path) => (path === '/gone' ? { status: 410 } : { status: 200 });
    const worker = await startWorker(t.ctx);
    try {
      await t.app.inject({ method: 'POST', url: `/api/webhook-endpoints/${id}/test`, headers: owner.headers });
      const e = await waitFor(() => endpoint(owner, id), (v) => v.enabled === false, 10_000, 'disabled');
      expect(e.disabled_reason).toMatch(/410/);
      const log = await rowsOf<{ action: string; reason: string }>(t.ctx.db, sql`select action, reason from activity_log where organization_id = ${owner.userId} and action = 'webhook.disabled'`);
      expect(log).toHaveLength(1);
      // Enabled again by a member: the reason goes.
      const again = await t.app.inject({ method: 'PATCH', url: `/api/webhook-endpoints/${id}`, headers: owner.headers, payload: { enabled: true } });
      expect(again.json()).toMatchObject({ enabled: true, disabled_reason: null });
    } finally {
      await worker.stop();
      receiver.answer = () => ({ status: 200 });
    }
  });

  it('after 3 days of failures the endpoint is disabled and the administrators see why', async () => {
    const owner = await t.signUp();
    const { id } = await createEndpoint(owner, '/failing', ['campaign.started']);
    receiver.answer = (path) => (path === '/failing' ? { status: 503 } : { status: 200 });
    // The streak of failures began four days ago.
    await t.ctx.db.execute(sql`update webhook_endpoints set failing_since = now() - interval '4 days' where id = ${id}`);
    const worker = await startWorker(t.ctx);
    try {
      await t.app.inject({ method: 'POST', url: `/api/webhook-endpoints/${id}/test`, headers: owner.headers });
      const e = await waitFor(() => endpoint(owner, id), (v) => v.enabled === false, 10_000, 'disabled');
      expect(e.disabled_reason).toMatch(/fallaron durante 3 días/);
      const [entry] = await rowsOf<{ actor_name: string; reason: string }>(t.ctx.db, sql`select actor_name, reason from activity_log where organization_id = ${owner.userId} and action = 'webhook.disabled'`);
      expect(entry).toMatchObject({ actor_name: 'sistema', reason: e.disabled_reason });
    } finally {
      await worker.stop();
      receiver.answer = () => ({ status: 200 });
    }
  });

  it('a 429 with Retry-After waits at least that long before the next try', async () => {
    const owner = await t.signUp();
    const { id } = await createEndpoint(owner, '/throttled', ['campaign.started']);
    receiver.answer = (path) => (path === '/throttled' ? { status: 429, headers: { 'retry-after': '120' } } : { status: 200 });
    const worker = await startWorker(t.ctx);
    try {
      await t.app.inject({ method: 'POST', url: `/api/webhook-endpoints/${id}/test`, headers: owner.headers });
      const page = await waitFor(
        async () => (await t.app.inject({ method: 'GET', url: `/api/webhook-endpoints/${id}/deliveries`, headers: owner.headers })).json(),
        (p) => p.items[0]?.attempts >= 1,
        10_000,
        'the throttled attempt',
      );
      const wait = Date.parse(page.items[0].next_attempt_at) - Date.now();
      expect(wait).toBeGreaterThan(100_000);
      expect(wait).toBeLessThanOrEqual(132_000); // ±10 % jitter from a minute up
    } finally {
      await worker.stop();
      receiver.answer = () => ({ status: 200 });
    }
  });

  it('a slow receiver times out', async () => {
    const owner = await t.signUp();
    const { id } = await createEndpoint(owner, '/slow', ['campaign.started']);
    receiver.answer = (path) => (path === '/slow' ? { status: 200, delayMs: 1500 } : { status: 200 });
    const worker = await startWorker(t.ctx, { timeoutMs: 300 });
    try {
      await t.app.inject({ method: 'POST', url: `/api/webhook-endpoints/${id}/test`, headers: owner.headers });
      const page = await waitFor(
        async () => (await t.app.inject({ method: 'GET', url: `/api/webhook-endpoints/${id}/deliveries`, headers: owner.headers })).json(),
        (p) => p.items[0]?.attempts >= 1,
        10_000,
        'a timed-out attempt',
      );
      expect(page.items[0].last_error).toMatch(/no respondió/);
    } finally {
      await worker.stop();
      receiver.answer = () => ({ status: 200 });
    }
  });

  it('rotation: both secrets sign for 24 h, then only the new one', async () => {
    const owner = await t.signUp();
    const { id, secret: oldSecret } = await createEndpoint(owner, '/rotated', ['campaign.started']);
    const rotated = await t.app.inject({ method: 'POST', url: `/api/webhook-endpoints/${id}/rotate-secret`, headers: owner.headers });
    expect(rotated.statusCode).toBe(200);
    const { secret: newSecret, previous_secret_expires_at } = rotated.json();
    expect(newSecret).not.toBe(oldSecret);
    const hours = (Date.parse(previous_secret_expires_at) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(23.9);
    expect(hours).toBeLessThanOrEqual(24);
    const worker = await startWorker(t.ctx);
    try {
      await t.app.inject({ method: 'POST', url: `/api/webhook-endpoints/${id}/test`, headers: owner.headers });
      const [r] = await waitFor(async () => receiver.at('/rotated'), (rs) => rs.length >= 1, 10_000, 'the test event');
      expect(String(r!.headers['webhook-signature']).split(' ')).toHaveLength(2);
      expect(verified(newSecret, r!).type).toBe('webhook.test');
      expect(verified(oldSecret, r!).type).toBe('webhook.test');
      // The overlap ended: only the new secret signs.
      await t.ctx.db.execute(sql`update webhook_endpoints set previous_secret_expires_at = now() - interval '1 second' where id = ${id}`);
      await t.app.inject({ method: 'POST', url: `/api/webhook-endpoints/${id}/test`, headers: owner.headers });
      const rs = await waitFor(async () => receiver.at('/rotated'), (x) => x.length >= 2, 10_000, 'the second test event');
      expect(String(rs[1]!.headers['webhook-signature']).split(' ')).toHaveLength(1);
      expect(verified(newSecret, rs[1]!).type).toBe('webhook.test');
      expect(() => verified(oldSecret, rs[1]!)).toThrow();
    } finally {
      await worker.stop();
    }
    const log = await rowsOf<{ action: string }>(t.ctx.db, sql`select action from activity_log where organization_id = ${owner.userId} and action = 'webhook.secret_rotated'`);
    expect(log).toHaveLength(1);
  });

  it('«Reenviar» sends the same delivery again with the same webhook-id', async () => {
    const owner = await t.signUp();
    const { id } = await createEndpoint(owner, '/resend', ['campaign.started']);
    const worker = await startWorker(t.ctx);
    try {
      const test = (await t.app.inject({ method: 'POST', url: `/api/webhook-endpoints/${id}/test`, headers: owner.headers })).json();
      await waitFor(async () => receiver.at('/resend'), (rs) => rs.length >= 1, 10_000, 'the test event');
      const res = await t.app.inject({ method: 'POST', url: `/api/webhook-endpoints/${id}/deliveries/${test.id}/resend`, headers: owner.headers });
      expect(res.statusCode).toBe(202);
      const rs = await waitFor(async () => receiver.at('/resend'), (x) => x.length >= 2, 10_000, 'the resent event');
      expect(rs[1]!.headers['webhook-id']).toBe(rs[0]!.headers['webhook-id']);
      expect(rs[1]!.body).toBe(rs[0]!.body);
    } finally {
      await worker.stop();
    }
  });
});

describe('events from the webhook inbox', () => {
  const NUMBER = { phoneNumberId: '7201', wabaId: '8201' };
  let owner: User;
  let world: CampaignWorld;
  let inbox: WebhookInbox;
  let campaignId: number;
  const recipients: Array<{ id: number; wamid: string; digits: string }> = [];

  beforeAll(async () => {
    owner = await t.signUp();
    world = await seedCampaignWorld(t.ctx.db, t.ctx.secrets, owner.userId, { number: { ...NUMBER, token: 'tok' } });
    inbox = new WebhookInbox(t.ctx, resolveEngineOptions({}), () => undefined);
    campaignId = (
      await createCampaign(t.ctx, owner.userId, { name: 'Estados', kommo_account_id: world.kommoAccountId, whatsapp_account_id: world.whatsappAccountId, template_id: world.templateId, filters: {} })
    ).id;
    const rows = await rowsOf<{ id: number; wamid: string; phone: string }>(
      t.ctx.db,
      sql`insert into campaign_recipients (campaign_id, user_id, phone, phone_key, status, wamid, sent_at, country)
          select ${campaignId}, ${owner.userId}, '+54911' || lpad(g::text, 8, '0'), '54911' || lpad(g::text, 8, '0'), 'sent',
                 'wamid.out.' || g, now() - interval '1 minute', 'AR'
          from generate_series(1, 250) g
          returning id, wamid, phone`,
    );
    for (const r of rows) recipients.push({ id: Number(r.id), wamid: r.wamid, digits: r.phone.slice(1) });
    await t.ctx.db.execute(sql`update campaigns set status = 'sending', audience_frozen_at = now(), started_at = now(),
        total_recipients = 250, messages_sent = 250, pending_count = 0 where id = ${campaignId}`);
  });

  async function deliver(payload: unknown) {
    const res = await postWebhook(t.app, APP_SECRET, payload);
    expect(res.statusCode).toBe(200);
    while ((await inbox.drainOnce()) > 0) {
      /* until the inbox is empty */
    }
  }

  it('message.status: 250 statuses of one campaign arrive in deliveries of at most 100', async () => {
    const { secret } = await createEndpoint(owner, '/statuses', ['message.status']);
    const now = new Date();
    await deliver({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: NUMBER.wabaId,
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                metadata: { display_phone_number: '15550000000', phone_number_id: NUMBER.phoneNumberId },
                statuses: recipients.map((r) => ({ id: r.wamid, status: 'delivered', timestamp: unix(now), recipient_id: r.digits })),
              },
            },
          ],
        },
      ],
    });
    const worker = await startWorker(t.ctx);
    try {
      const got = await waitFor(
        async () => receiver.at('/statuses').map((r) => verified(secret, r)),
        (ps) => ps.reduce((n, p) => n + (p.data.statuses as unknown[]).length, 0) >= 250,
        15_000,
        'every status',
      );
      expect(got.length).toBe(3);
      for (const p of got) {
        expect(p.type).toBe('message.status');
        expect(p.data.campaign_id).toBe(campaignId);
        expect((p.data.statuses as unknown[]).length).toBeLessThanOrEqual(100);
      }
      const ids = got.flatMap((p) => (p.data.statuses as Array<{ recipient_id: number; status: string }>).map((s) => s.recipient_id));
      expect(new Set(ids)).toEqual(new Set(recipients.map((r) => r.id)));
      expect((got[0]!.data.statuses as Array<{ status: string }>)[0]!.status).toBe('delivered');
    } finally {
      await worker.stop();
    }
  });

  it('contact.opted_out on «BAJA» and contact.opted_in on «ALTA», once each', async () => {
    const { secret } = await createEndpoint(owner, '/opt', ['contact.opted_out', 'contact.opted_in']);
    const from = recipients[1]!.digits;
    await deliver(textMessage(NUMBER, { from, id: 'wamid.in.baja.1', at: new Date(), body: 'BAJA' }));
    await deliver(textMessage(NUMBER, { from, id: 'wamid.in.baja.2', at: new Date(), body: 'baja' }));
    await deliver(textMessage(NUMBER, { from, id: 'wamid.in.alta.1', at: new Date(), body: 'ALTA' }));
    const worker = await startWorker(t.ctx);
    try {
      const got = await waitFor(async () => receiver.at('/opt').map((x) => verified(secret, x)), (ps) => ps.length >= 2, 10_000, 'the opt-out and the opt-in');
      await new Promise((r) => setTimeout(r, 300));
      expect(receiver.at('/opt')).toHaveLength(2);
      // Deliveries run side by side, so they may arrive in either order (receivers order by `timestamp`).
      expect(got.map((p) => [p.type, p.data.phone, p.data.origin]).sort()).toEqual([
        ['contact.opted_in', `+${from}`, 'keyword'],
        ['contact.opted_out', `+${from}`, 'keyword'],
      ]);
    } finally {
      await worker.stop();
    }
  });

  it('reply.received carries the button tapped; an organisation without endpoints writes nothing', async () => {
    const { secret } = await createEndpoint(owner, '/replies', ['reply.received']);
    const r = recipients[0]!;
    await deliver(buttonMessage(NUMBER, { from: r.digits, id: 'wamid.in.tap.1', at: new Date(), contextId: r.wamid, payload: 'quiero-mas', text: 'Me interesa' }));
    const worker = await startWorker(t.ctx);
    try {
      const [got] = await waitFor(async () => receiver.at('/replies').map((x) => verified(secret, x)), (ps) => ps.length >= 1, 10_000, 'the reply');
      expect(got).toMatchObject({
        type: 'reply.received',
        data: { campaign_id: campaignId, recipient_id: r.id, type: 'button', button: { text: 'Me interesa', payload: 'quiero-mas' } },
      });
    } finally {
      await worker.stop();
    }
    const before = await rowsOf<{ n: number }>(t.ctx.db, sql`select count(*)::int as n from webhook_outbox`);
    const quiet = await t.signUp();
    const other = await seedCampaignWorld(t.ctx.db, t.ctx.secrets, quiet.userId, { number: { phoneNumberId: '7301', wabaId: '8301', token: 'tok' } });
    await t.ctx.db.execute(sql`update campaigns set status = 'sending' where user_id = ${quiet.userId}`);
    await t.app.inject({ method: 'POST', url: `/api/blacklist/${other.kommoAccountId}`, headers: quiet.headers, payload: { phone: '+5491155550002' } });
    const after = await rowsOf<{ n: number }>(t.ctx.db, sql`select count(*)::int as n from webhook_outbox`);
    expect(after[0]!.n).toBe(before[0]!.n);
  });
});

describe('defaults', () => {
  it("the retry schedule is the issue's: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h; 10 s timeout; 3 days", () => {
    const m = 60_000;
    expect(DEFAULT_WEBHOOK_DELIVERY_OPTIONS.retryDelaysMs).toEqual([5_000, 5 * m, 30 * m, 120 * m, 300 * m, 600 * m, 600 * m]);
    expect(DEFAULT_WEBHOOK_DELIVERY_OPTIONS.timeoutMs).toBe(10_000);
    expect(DEFAULT_WEBHOOK_DELIVERY_OPTIONS.disableAfterMs).toBe(3 * 24 * 60 * m);
  });
});
