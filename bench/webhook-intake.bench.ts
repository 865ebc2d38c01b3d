/**
 * Webhook intake at 1,000 msg/s: signed status webhooks for a campaign sending
 * 1,000 messages a second (sent, delivered 1 s later, read 2 s later: about 3,000 status
 * events a second, `pricing` on sent and delivered, our signed callback data on each) are
 * POSTed for 60 s into the real server on PostgreSQL, from a worker thread. Printed: the intake
 * rate, the inbox backlog over time (must not grow), and the time from POST to applied (max and
 * p95; target: every status applied within 5 s), then a check that every status took effect.
 *
 *   npx tsx bench/webhook-intake.bench.ts [--seconds 60] [--rate 1000] [--batch 25]
 *
 * The PostgreSQL database is created for the run and dropped after it.
 */
import { parseArgs } from 'node:util';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { sql } from 'drizzle-orm';
import { Pool } from 'undici';
import { buildApp } from '../server/src/app';
import { loadConfig } from '../server/src/config';
import { createContext } from '../server/src/context';
import { rowsOf } from '../server/src/db/sql';
import { createCallbackData } from '../server/src/engine/campaigns/callback-data';
import { startCampaignEngine } from '../server/src/engine/campaigns/index';
import { createCampaign } from '../server/src/services/campaigns/create-campaign';
import { startCampaign } from '../server/src/services/campaigns/start-campaign';
import { signWebhook } from '../server/test/helpers/webhook';
import { seedCampaignWorld } from '../server/test/helpers/campaign-fixtures';
import { openBenchDatabase } from './lib/database';
import { fmt, percentile, printTable } from './lib/stats';

const WEBHOOK_SECRET = 'bench-webhook-secret';
const APP_SECRET = 'bench-app-secret-bench-app-secret';
const PHONE_NUMBER_ID = '900001';
const WABA_ID = '800001';
const TICK_MS = 100;

interface GeneratorInput {
  url: string;
  campaignId: number;
  /** Recipient ids in send order. */
  ids: number[];
  rate: number;
  seconds: number;
  batch: number;
}
interface GeneratorResult {
  posted: number;
  events: number;
  failedPosts: number;
  firstAt: number;
  lastAt: number;
  /** Events posted while sent, delivered and read all flow (after the first 2 s, before the tail). */
  steadyEvents: number;
  steadyMs: number;
}

/** The worker: Meta posting statuses. */
async function generate(input: GeneratorInput): Promise<GeneratorResult> {
  const callback = createCallbackData(APP_SECRET);
  const url = new URL(input.url);
  const pool = new Pool(url.origin, { connections: 16 });
  const perTick = Math.round((input.rate * TICK_MS) / 1000);
  const ticks = Math.round((input.seconds * 1000) / TICK_MS);
  const lagTicks = (s: number) => Math.round((s * 1000) / TICK_MS);
  const result: GeneratorResult = { posted: 0, events: 0, failedPosts: 0, firstAt: 0, lastAt: 0, steadyEvents: 0, steadyMs: 0 };
  let steadyFrom = 0;
  const inFlight = new Set<Promise<void>>();
  const status = (id: number, s: 'sent' | 'delivered' | 'read', ts: number) => ({
    id: `wamid.bench.${id}`,
    status: s,
    timestamp: String(ts),
    recipient_id: '5491100000000',
    biz_opaque_callback_data: callback.sign({ campaignId: input.campaignId, recipientId: id }),
    ...(s === 'read' ? {} : { pricing: { billable: true, pricing_model: 'PMP', type: 'regular', category: 'marketing' } }),
  });
  const post = (statuses: unknown[]) => {
    const body = JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [{ id: WABA_ID, changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', metadata: { display_phone_number: '5491100000000', phone_number_id: PHONE_NUMBER_ID }, statuses } }] }],
    });
    const p = pool
      .request({ method: 'POST', path: url.pathname, body, headers: { 'content-type': 'application/json', 'x-hub-signature-256': signWebhook(body, WEBHOOK_SECRET) } })
      .then(async (res) => {
        await res.body.dump();
        if (res.statusCode === 200) {
          result.posted++;
          result.events += statuses.length;
        } else result.failedPosts++;
      })
      .catch(() => {
        result.failedPosts++;
      })
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  };
  const started = performance.now();
  result.firstAt = Date.now();
  for (let k = 0; k < ticks + lagTicks(2); k++) {
    const ts = Math.floor(Date.now() / 1000);
    const events: unknown[] = [];
    const block = (tick: number) => (tick >= 0 && tick < ticks ? input.ids.slice(tick * perTick, (tick + 1) * perTick) : []);
    for (const id of block(k)) events.push(status(id, 'sent', ts));
    for (const id of block(k - lagTicks(1))) events.push(status(id, 'delivered', ts));
    for (const id of block(k - lagTicks(2))) events.push(status(id, 'read', ts));
    for (let i = 0; i < events.length; i += input.batch) post(events.slice(i, i + input.batch));
    if (k === lagTicks(2)) steadyFrom = performance.now();
    if (k >= lagTicks(2) && k < ticks) result.steadyEvents += events.length;
    if (k === ticks - 1) result.steadyMs = performance.now() - steadyFrom + TICK_MS;
    const wait = started + (k + 1) * TICK_MS - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  await Promise.all([...inFlight]);
  result.lastAt = Date.now();
  await pool.close();
  return result;
}

if (!isMainThread) {
  void generate(workerData as GeneratorInput).then((r) => parentPort!.postMessage(r));
} else {
  await main();
}

async function main() {
  const { values: args } = parseArgs({
    options: {
      seconds: { type: 'string', default: '60' },
      rate: { type: 'string', default: '1000' },
      batch: { type: 'string', default: '25' },
    },
  });
  const SECONDS = Number(args.seconds);
  const RATE = Number(args.rate);
  const BATCH = Number(args.batch);
  const bench = await openBenchDatabase('postgres', 'bench_webhooks', { poolSize: 12 });
  const { database } = bench;
  try {
    const config = loadConfig({
      APP_SECRET,
      DATA_DIR: '/tmp/masivo-bench',
      LOG_LEVEL: 'silent',
      WHATSAPP_APP_SECRET: WEBHOOK_SECRET,
    });
    const ctx = createContext(config, database);
    // Each applied POST reports its lag from receipt (received_at, stamped when the POST was stored).
    const lags: number[] = [];
    const applied = ctx.metrics.webhooksApplied.bind(ctx.metrics);
    ctx.metrics.webhooksApplied = (receivedAt) => {
      const now = Date.now();
      for (const at of receivedAt) lags.push(now - new Date(at).getTime());
      applied(receivedAt);
    };
    const app = await buildApp(ctx);
    const address = await app.listen({ port: 0, host: '127.0.0.1' });

    const [user] = await rowsOf<{ id: number }>(database.db, sql`insert into users (email, password_hash) values ('bench@example.com', 'x') returning id`);
    const userId = Number(user.id);
    const n = RATE * SECONDS;
    const world = await seedCampaignWorld(database.db, ctx.secrets, userId, {
      number: { phoneNumberId: PHONE_NUMBER_ID, wabaId: WABA_ID, token: 'tok', ratePerSecond: RATE },
      contacts: n,
    });
    const c = await createCampaign(ctx, userId, {
      name: 'Bench webhooks', kommo_account_id: world.kommoAccountId, whatsapp_account_id: world.whatsappAccountId, template_id: world.templateId,
    });
    await startCampaign(ctx, userId, c.id);
    // As the sender leaves them: claimed, request made, wamid known (the accept was written).
    await database.db.execute(sql`update campaign_recipients set status = 'sending', attempts = 1, claimed_at = now(),
        claim_owner = 'bench', wamid = 'wamid.bench.' || id where campaign_id = ${c.id}`);
    const ids = (await rowsOf<{ id: number }>(database.db, sql`select id::int as id from campaign_recipients where campaign_id = ${c.id} order by id`)).map((r) => Number(r.id));

    // Only the inbox runs: the senders and the scheduler are not what is measured.
    const engine = startCampaignEngine(ctx, { runSenders: false, runScheduler: false });
    const backlog: Array<{ s: number; n: number; oldestMs: number }> = [];
    const t0 = Date.now();
    const sampler = setInterval(() => {
      void rowsOf<{ n: number; oldest: number | null }>(
        database.db,
        sql`select count(*)::int as n, extract(epoch from (now() - min(received_at))) * 1000 as oldest from webhook_events`,
      ).then(([r]) => backlog.push({ s: (Date.now() - t0) / 1000, n: Number(r.n), oldestMs: Number(r.oldest ?? 0) }));
    }, 1_000);

    // The worker loads this same TypeScript file through tsx's loader (workers do not inherit it).
    const self = JSON.stringify(import.meta.url);
    const worker = new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${self}); })`, {
      eval: true,
      workerData: { url: `${address}/api/webhooks/whatsapp`, campaignId: c.id, ids, rate: RATE, seconds: SECONDS, batch: BATCH } satisfies GeneratorInput,
    });
    const gen = await new Promise<GeneratorResult>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await worker.terminate();
    // Let the inbox finish what was posted.
    const drainStart = Date.now();
    for (;;) {
      const [r] = await rowsOf<{ n: number }>(database.db, sql`select count(*)::int as n from webhook_events`);
      if (Number(r.n) === 0 || Date.now() - drainStart > 60_000) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    clearInterval(sampler);
    const drainedIn = (Date.now() - drainStart) / 1000;
    await engine.stop();

    const [final] = await rowsOf<{ read: number; priced: number; total: number }>(
      database.db,
      sql`select count(*) filter (where status = 'read')::int as read,
            count(*) filter (where pricing_category = 'marketing')::int as priced, count(*)::int as total
          from campaign_recipients where campaign_id = ${c.id}`,
    );
    await app.close();

    const worst = lags.reduce((a, b) => Math.max(a, b), 0);
    const intake = gen.steadyEvents / (gen.steadyMs / 1000);
    const mid = backlog.filter((b) => b.s > 5 && b.s <= SECONDS);
    const firstHalf = mid.filter((b) => b.s <= SECONDS / 2);
    const secondHalf = mid.filter((b) => b.s > SECONDS / 2);
    const avg = (xs: Array<{ n: number }>) => (xs.length ? xs.reduce((a, b) => a + b.n, 0) / xs.length : 0);

    console.log('backlog (stored POSTs not yet applied), every 5 s:');
    for (const b of backlog.filter((_, i) => i % 5 === 4)) console.log(`  t=${fmt(b.s, 0).padStart(3)} s  ${fmt(b.n).padStart(5)} POSTs  oldest ${fmt(b.oldestMs)} ms`);
    const rows: Array<[string, string, string, string]> = [
      ['status events posted', `${fmt(gen.events)} in ${fmt(gen.posted)} POSTs (${gen.failedPosts} refused)`, '', gen.failedPosts === 0 ? 'ok' : 'FAIL'],
      ['intake rate (sent + delivered + read flowing)', `${fmt(intake)} events/s`, '≈ 3,000', intake >= RATE * 3 * 0.95 ? 'ok' : 'FAIL'],
      ['backlog, mean 1st half → 2nd half', `${fmt(avg(firstHalf), 1)} → ${fmt(avg(secondHalf), 1)} POSTs`, 'not growing', avg(secondHalf) <= Math.max(5, avg(firstHalf) * 2) ? 'ok' : 'FAIL'],
      ['POST → applied, p95', `${fmt(percentile(lags, 0.95))} ms`, '', ''],
      ['POST → applied, max', `${fmt(worst)} ms`, '≤ 5,000 ms', worst <= 5_000 ? 'ok' : 'FAIL'],
      ['drained after the last POST in', `${fmt(drainedIn, 1)} s`, '', ''],
      ['recipients read / priced', `${fmt(final.read)} / ${fmt(final.priced)} of ${fmt(final.total)}`, 'all', final.read === final.total && final.priced === final.total ? 'ok' : 'FAIL'],
    ];
    printTable(rows);
    if (rows.some((r) => r[3] === 'FAIL')) process.exitCode = 1;
  } finally {
    await bench.close();
  }
}
