/**
 * Outbound webhooks on PostgreSQL: a campaign of 100,000 recipients whose `delivered` statuses
 * Meta posts (100 a POST), applied by the webhook inbox, twice: first with no endpoint (the hot
 * path's cost when nobody subscribed), then with an endpoint subscribed to `message.status` on a
 * local receiver (node:http), with `read` statuses. Printed: the inbox's rate in both runs, and
 * the rate at which statuses reach the receiver end to end (inbox → outbox → fan-out → signed
 * deliveries of at most 100), with every signature verified and no status lost or repeated.
 *
 *   npx tsx bench/webhooks.bench.ts [--recipients 100000]
 *
 * Target (the issue's): ≥ 2,000 statuses/s reach the receiver, 0 lost.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { loadConfig } from '../server/src/config';
import { createContext } from '../server/src/context';
import { jsonParam, rowsOf } from '../server/src/db/sql';
import { resolveEngineOptions } from '../server/src/engine/campaigns/options';
import { WebhookInbox } from '../server/src/engine/campaigns/webhook-inbox';
import { startWebhookDeliveries } from '../server/src/engine/webhook-deliveries/index';
import { JobRunner } from '../server/src/jobs/index';
import { createCampaign } from '../server/src/services/campaigns/create-campaign';
import { createWebhookEndpointsService } from '../server/src/services/webhook-endpoints/endpoints-service';
import { seedCampaignWorld } from '../server/test/helpers/campaign-fixtures';
import { openBenchDatabase } from './lib/database';
import { fmt, printTable } from './lib/stats';

const PHONE_NUMBER_ID = '920001';
const WABA_ID = '820001';
const PER_POST = 100;

const { values: args } = parseArgs({ options: { recipients: { type: 'string', default: '100000' } } });
const N = Number(args.recipients);

function statusPost(from: number, to: number, status: string, atSec: number) {
  const statuses = [];
  for (let i = from; i <= to; i++) statuses.push({ id: `wamid.w.${i}`, status, timestamp: String(atSec), recipient_id: `549110${String(i).padStart(7, '0')}` });
  return {
    object: 'whatsapp_business_account',
    entry: [{ id: WABA_ID, changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', metadata: { display_phone_number: '5491100000000', phone_number_id: PHONE_NUMBER_ID }, statuses } }] }],
  };
}

const bench = await openBenchDatabase('postgres', 'bench_webhooks', { poolSize: 8 });
const { database } = bench;
const received = new Map<number, number>();
let requests = 0;
let badSignatures = 0;
let lastAt = 0;
let verifier: Webhook | null = null;
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    requests++;
    try {
      const payload = verifier!.verify(body, req.headers as Record<string, string>) as { data: { statuses: Array<{ recipient_id: number }> } };
      for (const s of payload.data.statuses) received.set(s.recipient_id, (received.get(s.recipient_id) ?? 0) + 1);
    } catch {
      badSignatures++;
    }
    lastAt = performance.now();
    res.writeHead(200).end('ok');
  });
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const port = (receiver.address() as AddressInfo).port;

try {
  const ctx = createContext(
    loadConfig({ APP_SECRET: 'bench-app-secret-bench-app-secret', DATA_DIR: '/tmp/masivo-bench', LOG_LEVEL: 'silent', WEBHOOKS_ALLOW_PRIVATE_HOSTS: '1' }),
    database,
  );
  const { db } = database;
  const [user] = await rowsOf<{ id: number }>(db, sql`insert into users (email, password_hash) values ('bench@example.com', 'x') returning id`);
  const userId = Number(user!.id);
  await db.execute(sql`insert into organizations (id, name) values (${userId}, 'Bench') on conflict do nothing`);
  const world = await seedCampaignWorld(db, ctx.secrets, userId, { number: { phoneNumberId: PHONE_NUMBER_ID, wabaId: WABA_ID, token: 'tok' } });
  const c = await createCampaign(ctx, userId, { name: 'Bench webhooks', kommo_account_id: world.kommoAccountId, whatsapp_account_id: world.whatsappAccountId, template_id: world.templateId });
  const sentAtSec = Math.floor(Date.now() / 1000) - 600;
  await db.execute(sql`insert into campaign_recipients (campaign_id, user_id, phone, phone_key, status, wamid, sent_at, country)
      select ${c.id}, ${userId}, '+549110' || lpad(i::text, 7, '0'), '54110' || lpad(i::text, 7, '0'), 'sent', 'wamid.w.' || i, to_timestamp(${sentAtSec}), 'AR'
      from generate_series(1, ${N}) i`);
  await db.execute(sql`update campaigns set status = 'sending', started_at = to_timestamp(${sentAtSec}), audience_frozen_at = to_timestamp(${sentAtSec}),
      total_recipients = ${N}, messages_sent = ${N}, pending_count = 0 where id = ${c.id}`);
  await db.execute(sql`analyze`);

  const store = async (status: string, atSec: number) => {
    const posts: object[] = [];
    for (let i = 1; i <= N; i += PER_POST) posts.push(statusPost(i, Math.min(N, i + PER_POST - 1), status, atSec));
    for (let k = 0; k < posts.length; k += 100) {
      await db.execute(sql`insert into webhook_events (payload) select value from jsonb_array_elements(${jsonParam(posts.slice(k, k + 100))})`);
    }
  };
  const inbox = new WebhookInbox(ctx, resolveEngineOptions({}), (msg, err) => console.error(msg, err));
  const drain = async () => {
    const started = performance.now();
    while ((await inbox.drainOnce()) > 0) {
      /* until every stored POST is applied */
    }
    return (performance.now() - started) / 1000;
  };

  // 1. Nobody subscribed: what the inbox costs without outbound webhooks.
  await store('delivered', sentAtSec + 5);
  const quietSeconds = await drain();
  const [quietOutbox] = await rowsOf<{ n: number }>(db, sql`select count(*)::int as n from webhook_outbox`);

  // 2. An endpoint subscribed to message.status on the local receiver.
  const endpoints = createWebhookEndpointsService(ctx);
  const created = await endpoints.create(userId, null, { url: `http://127.0.0.1:${port}/hooks`, events: ['message.status'] });
  verifier = new Webhook(created.secret);
  await store('read', sentAtSec + 30);
  const runner = new JobRunner({ db, log: ctx.log, owner: ctx.instanceId, stopTimeoutMs: 1_000 });
  const work = startWebhookDeliveries(ctx, runner, { pollMs: 100, fanoutEveryMs: 100 });
  await runner.start();
  const started = performance.now();
  const inboxSeconds = await drain();
  const deadline = Date.now() + 300_000;
  while (received.size < N && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const endToEnd = (lastAt - started) / 1000;
  await work.stop();
  await runner.stop();

  const [d] = await rowsOf<{ deliveries: number; max_attempts: number; pending: number; biggest: number }>(
    db,
    sql`select count(*)::int as deliveries, coalesce(max(attempts), 0)::int as max_attempts,
               count(*) filter (where state <> 'delivered')::int as pending,
               coalesce(max(json_array_length((body::json -> 'data' -> 'statuses'))), 0)::int as biggest
        from webhook_deliveries where event_type = 'message.status'`,
  );
  const lost = N - received.size;
  const repeated = [...received.values()].filter((n) => n > 1).length;
  const rate = received.size / endToEnd;
  const rows: Array<[string, string, string, string]> = [
    ['recipients / statuses posted per run', `${fmt(N)} / ${fmt(N)} in ${fmt(Math.ceil(N / PER_POST))} POSTs`, '', ''],
    ['inbox, no endpoint subscribed', `${fmt(N / quietSeconds)} statuses/s (${fmt(quietSeconds, 1)} s), outbox rows ${fmt(quietOutbox!.n)}`, 'outbox 0', quietOutbox!.n === 0 ? 'ok' : 'FAIL'],
    ['inbox, endpoint subscribed', `${fmt(N / inboxSeconds)} statuses/s (${fmt(inboxSeconds, 1)} s)`, '', ''],
    ['statuses at the receiver, end to end', `${fmt(rate)} statuses/s (${fmt(endToEnd, 1)} s)`, '≥ 2,000/s', rate >= 2000 ? 'ok' : 'FAIL'],
    ['lost / repeated / bad signatures', `${fmt(lost)} / ${fmt(repeated)} / ${fmt(badSignatures)}`, '0 / 0 / 0', lost === 0 && repeated === 0 && badSignatures === 0 ? 'ok' : 'FAIL'],
    ['deliveries (requests) / largest batch / max attempts / not delivered', `${fmt(d!.deliveries)} (${fmt(requests)}) / ${d!.biggest} / ${d!.max_attempts} / ${d!.pending}`, '≤ 100 a batch', d!.biggest <= 100 && d!.pending === 0 ? 'ok' : 'FAIL'],
  ];
  printTable(rows);
  if (rows.some((r) => r[3] === 'FAIL')) process.exitCode = 1;
} finally {
  receiver.closeAllConnections();
  receiver.close();
  await bench.close();
}
