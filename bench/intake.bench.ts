/**
 * Meta's status webhooks at scale, on real processes: the API (ROLE=api, API_PROCESSES=1, then 2
 * through Node's cluster on one port) takes signed status webhooks, and one ROLE=worker process
 * (the webhook inbox is part of its background work) applies them, all on a fresh PostgreSQL
 * database. A frozen campaign's recipients get `sent`, `delivered` 1 s later and `read` 2 s later
 * (our signed callback data on each), POSTed from worker threads at `--rate` statuses a second for
 * `--seconds`. Printed for each number of API processes: the intake accepted, the inbox backlog
 * sampled every second, POST → applied (p50/p95/max) and whether every status took effect.
 *
 *   npm run bench -- intake [--rate 6000] [--seconds 60] [--processes 1,2] [--batch 1] [--threads 2]
 *
 * `--rate` counts statuses (three per message); `--batch` is statuses per POST (Meta mostly posts
 * one). Each run has a database of its own, dropped after it.
 */
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import { loadConfig } from '../server/src/config';
import { createContext } from '../server/src/context';
import { rowsOf } from '../server/src/db/sql';
import { startServer } from '../server/src/server';
import { createCampaign } from '../server/src/services/campaigns/create-campaign';
import { startCampaign } from '../server/src/services/campaigns/start-campaign';
import { seedCampaignWorld } from '../server/test/helpers/campaign-fixtures';
import { ask, forkBench, nextMessage, spawnReady, stopChild } from './lib/child';
import { openBenchDatabase } from './lib/database';
import { runStatusWebhooks, STATUSES_PER_MESSAGE } from './lib/status-webhooks';
import { fmt, percentile, printTable } from './lib/stats';

const WEBHOOK_SECRET = 'bench-webhook-secret';
const APP_SECRET = 'bench-app-secret-bench-app-secret';
const PHONE_NUMBER_ID = '900001';
const WABA_ID = '800001';
/** Target: every status applied within this long of its POST, at p95. */
const LAG_TARGET_MS = 5_000;
/** After the last POST, the inbox gets this long to apply what is left. */
const DRAIN_LIMIT_MS = 30_000;

const env = (databaseUrl: string, extra: Record<string, string>) => ({
  PATH: process.env.PATH,
  DATABASE_URL: databaseUrl,
  APP_SECRET,
  WHATSAPP_APP_SECRET: WEBHOOK_SECRET,
  DATA_DIR: '/tmp/masivo-bench',
  LOG_LEVEL: 'warn',
  HOST: '127.0.0.1',
  PORT: '0',
  ...extra,
});

if (process.argv[2] === 'inbox-worker') await inboxWorker(process.argv[3]!);
else await main();

/**
 * The ROLE=worker process (startServer, as main.ts runs it), reporting each applied POST's lag
 * from receipt (received_at, stamped when the API stored it) to the bench when asked.
 */
async function inboxWorker(databaseUrl: string) {
  const server = await startServer(loadConfig(env(databaseUrl, { ROLE: 'worker' })));
  const lags: number[] = [];
  const metrics = server.ctx.metrics;
  const applied = metrics.webhooksApplied.bind(metrics);
  metrics.webhooksApplied = (receivedAt) => {
    const now = Date.now();
    for (const at of receivedAt) lags.push(now - new Date(at).getTime());
    applied(receivedAt);
  };
  process.on('message', (m) => {
    if (m === 'lags') process.send!({ lags });
  });
  process.send!('ready');
}

interface RunFigures {
  processes: number;
  intake: number;
  backlogFirst: number;
  backlogSecond: number;
  backlogEnd: number;
  p50: number;
  p95: number;
  max: number;
  lost: number;
  total: number;
  refused: number;
  drainedIn: number;
}

async function main() {
  const { values: args } = parseArgs({
    args: process.argv.slice(2),
    options: {
      rate: { type: 'string', default: '6000' },
      seconds: { type: 'string', default: '60' },
      processes: { type: 'string', default: '1,2' },
      batch: { type: 'string', default: '1' },
      threads: { type: 'string', default: '2' },
    },
  });
  const RATE = Number(args.rate);
  const SECONDS = Number(args.seconds);
  const BATCH = Number(args.batch);
  const THREADS = Number(args.threads);
  const counts = args.processes.split(',').map(Number);
  const load = loadavg();
  console.log(
    `machine: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), load average at start ${load.map((l) => l.toFixed(2)).join(' / ')} (1/5/15 min)`,
  );
  console.log(`target: ${fmt(RATE)} statuses/s for ${SECONDS} s, ${BATCH} status(es) per POST, ${THREADS} generator threads\n`);
  const figures: RunFigures[] = [];
  for (const processes of counts) figures.push(await run(processes, { RATE, SECONDS, BATCH, THREADS }));

  console.log(`\nsummary (target ${fmt(RATE)} statuses/s, backlog flat, p95 ≤ ${fmt(LAG_TARGET_MS)} ms, 0 lost):`);
  printTable(
    figures.map((f) => [
      String(f.processes),
      fmt(f.intake),
      `${fmt(f.backlogFirst)} → ${fmt(f.backlogSecond)} (end ${fmt(f.backlogEnd)})`,
      `${fmt(f.p50)} / ${fmt(f.p95)} / ${fmt(f.max)}`,
      `${fmt(f.lost)} of ${fmt(f.total)}`,
      String(f.refused),
    ]),
    ['API processes', 'intake (statuses/s)', 'backlog mean 1st → 2nd half (POSTs)', 'POST → applied p50/p95/max (ms)', 'not applied', 'refused POSTs'],
  );
}

async function run(processes: number, o: { RATE: number; SECONDS: number; BATCH: number; THREADS: number }): Promise<RunFigures> {
  console.log(`## ${processes} API process${processes > 1 ? 'es' : ''} (ROLE=api API_PROCESSES=${processes}) + 1 ROLE=worker`);
  const bench = await openBenchDatabase('postgres', 'bench_intake', { poolSize: 4 });
  const { database } = bench;
  const children: Array<Parameters<typeof stopChild>[0]> = [];
  try {
    // The campaign world, sealed with the processes' APP_SECRET.
    const ctx = createContext(loadConfig(env(bench.url!, { ROLE: 'api' })), database);
    const [user] = await rowsOf<{ id: number }>(database.db, sql`insert into users (email, password_hash) values ('bench@example.com', 'x') returning id`);
    const userId = Number(user.id);
    const messages = Math.round((o.RATE / STATUSES_PER_MESSAGE) * o.SECONDS);
    const world = await seedCampaignWorld(database.db, ctx.secrets, userId, {
      number: { phoneNumberId: PHONE_NUMBER_ID, wabaId: WABA_ID, token: 'tok', ratePerSecond: 1000 },
      contacts: messages,
    });
    const c = await createCampaign(ctx, userId, {
      name: 'Bench intake', kommo_account_id: world.kommoAccountId, whatsapp_account_id: world.whatsappAccountId, template_id: world.templateId,
    });
    await startCampaign(ctx, userId, c.id);
    // As the sender leaves them: claimed, request made, wamid known (the accept was written).
    await database.db.execute(sql`update campaign_recipients set status = 'sending', attempts = 1, claimed_at = now(),
        claim_owner = 'bench', wamid = 'wamid.bench.' || id where campaign_id = ${c.id}`);
    const ids = (await rowsOf<{ id: number }>(database.db, sql`select id::int as id from campaign_recipients where campaign_id = ${c.id} order by id`)).map((r) => Number(r.id));

    const worker = forkBench(import.meta.filename, ['inbox-worker', bench.url!]);
    children.push(worker);
    await nextMessage(worker, (m) => m === 'ready', 'inbox worker');
    const api = await spawnReady('server/src/main.ts', env(bench.url!, { ROLE: 'api', API_PROCESSES: String(processes) }), /Consola disponible en (http:\/\/\S+)/);
    children.push(api.child);

    const backlog: Array<{ s: number; n: number; oldestMs: number }> = [];
    const t0 = Date.now();
    const sampler = setInterval(() => {
      void rowsOf<{ n: number; oldest: number | null }>(
        database.db,
        sql`select count(*)::int as n, extract(epoch from (now() - min(received_at))) * 1000 as oldest from webhook_events`,
      ).then(([r]) => backlog.push({ s: (Date.now() - t0) / 1000, n: Number(r.n), oldestMs: Number(r.oldest ?? 0) }));
    }, 1_000);

    const gen = await runStatusWebhooks(
      {
        url: `${api.match[1]}/api/webhooks/whatsapp`,
        campaignId: c.id,
        ids,
        rate: o.RATE / STATUSES_PER_MESSAGE,
        seconds: o.SECONDS,
        batch: o.BATCH,
        connections: 32,
        webhookSecret: WEBHOOK_SECRET,
        appSecret: APP_SECRET,
        phoneNumberId: PHONE_NUMBER_ID,
        wabaId: WABA_ID,
      },
      o.THREADS,
    );
    // Let the inbox finish what was posted.
    const drainStart = Date.now();
    let left = 0;
    for (;;) {
      const [r] = await rowsOf<{ n: number }>(database.db, sql`select count(*)::int as n from webhook_events`);
      left = Number(r.n);
      if (left === 0 || Date.now() - drainStart > DRAIN_LIMIT_MS) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    clearInterval(sampler);
    const drainedIn = (Date.now() - drainStart) / 1000;
    const { lags } = await ask<{ lags: number[] }>(worker, 'lags', 'inbox worker');

    const [final] = await rowsOf<{ read: number; priced: number; total: number }>(
      database.db,
      sql`select count(*) filter (where status = 'read')::int as read,
            count(*) filter (where pricing_category = 'marketing')::int as priced, count(*)::int as total
          from campaign_recipients where campaign_id = ${c.id}`,
    );

    const intake = gen.steadyEvents / (gen.steadyMs / 1000);
    const during = backlog.filter((b) => b.s > 5 && b.s <= o.SECONDS);
    const half = (first: boolean) => during.filter((b) => (b.s <= o.SECONDS / 2) === first);
    const avg = (xs: Array<{ n: number }>) => (xs.length ? xs.reduce((a, b) => a + b.n, 0) / xs.length : 0);
    const f: RunFigures = {
      processes,
      intake,
      backlogFirst: avg(half(true)),
      backlogSecond: avg(half(false)),
      backlogEnd: during.at(-1)?.n ?? 0,
      p50: percentile(lags, 0.5),
      p95: percentile(lags, 0.95),
      max: lags.reduce((a, b) => Math.max(a, b), 0),
      lost: final.total - Math.min(final.read, final.priced),
      total: final.total,
      refused: gen.failedPosts,
      drainedIn,
    };

    console.log('backlog (stored POSTs not yet applied), every second:');
    console.log(`  ${backlog.map((b) => fmt(b.n)).join(' ')}`);
    console.log(`  oldest waiting, every 5 s (ms): ${backlog.filter((_, i) => i % 5 === 4).map((b) => fmt(b.oldestMs)).join(' ')}`);
    // Flat: the second half's mean exceeds the first's by less than half a second of POSTs.
    const flat = f.backlogSecond <= f.backlogFirst + o.RATE / o.BATCH / 2;
    const rows: Array<[string, string, string, string]> = [
      ['status events accepted', `${fmt(gen.events)} in ${fmt(gen.posted)} POSTs (${gen.failedPosts} refused)`, 'none refused', gen.failedPosts === 0 ? 'ok' : 'FAIL'],
      ['POST due → answered 200, p95 / max (thread worst)', `${fmt(gen.answerP95)} / ${fmt(gen.answerMax)} ms`, '', ''],
      ['intake accepted (sent + delivered + read flowing)', `${fmt(intake)} statuses/s`, `${fmt(o.RATE)}`, intake >= o.RATE * 0.95 ? 'ok' : 'FAIL'],
      ['backlog, mean 1st half → 2nd half', `${fmt(f.backlogFirst, 1)} → ${fmt(f.backlogSecond, 1)} POSTs`, 'flat', flat ? 'ok' : 'FAIL'],
      ['POST → applied, p50', `${fmt(f.p50)} ms`, '', ''],
      ['POST → applied, p95', `${fmt(f.p95)} ms`, `≤ ${fmt(LAG_TARGET_MS)} ms`, f.p95 <= LAG_TARGET_MS ? 'ok' : 'FAIL'],
      ['POST → applied, max', `${fmt(f.max)} ms`, '', ''],
      ['drained after the last POST in', `${fmt(drainedIn, 1)} s${left ? ` (${fmt(left)} POSTs still waiting)` : ''}`, '', ''],
      ['recipients read / priced', `${fmt(final.read)} / ${fmt(final.priced)} of ${fmt(final.total)}`, 'all (0 lost)', f.lost === 0 ? 'ok' : 'FAIL'],
    ];
    printTable(rows);
    console.log('');
    if (rows.some((r) => r[3] === 'FAIL')) process.exitCode = 1;
    return f;
  } finally {
    for (const child of children.reverse()) await stopChild(child);
    await bench.close();
  }
}
