/**
 * Exact pacing, judged the way Meta judges: a sliding one-second window at the
 * receiver. The WhatsApp simulator runs in its own process with a long-tailed latency jitter
 * on the way in (5 ms + an exponential tail averaging 15 ms, capped at 80 ms), so requests
 * spaced evenly at the sender bunch up on arrival. One campaign on one number, sent by 1 or 3
 * worker processes (engine-child.ts) against a scratch PostgreSQL database, and once with
 * the process holding the number killed (SIGKILL) mid-run while another takes it over.
 *
 * Columns:
 *   achieved      sends accepted / time from the first arrival to the last;
 *   % target      achieved / configured rate (target ≥ 97 %; for a kill, the handover wait
 *                 is shown apart and the sending rate excludes it);
 *   130429        how many arrivals Meta's sliding-window check at the rate would have
 *                 refused (the simulator's own throughput is set far above the rate, so this
 *                 replays its rule on the arrival times; target 0);
 *   max 1-s       most arrivals in any sliding one-second window (target ≤ rate).
 * A last row injects 3 × 130429 mid-run and measures how long until a full second at ≥ 97 %.
 *
 *   npx tsx bench/pacing.bench.ts [--large] [--rates 80,1000] [--sizes 3000] [--only one,three,kill,recovery]
 *
 * --large adds the 30,000-recipient runs (about 20 minutes at 80 msg/s).
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import { loadConfig } from '../server/src/config';
import { createContext } from '../server/src/context';
import { rowsOf } from '../server/src/db/sql';
import { getCampaign } from '../server/src/services/campaigns/campaign-queries';
import { createCampaign } from '../server/src/services/campaigns/create-campaign';
import { startCampaign } from '../server/src/services/campaigns/start-campaign';
import { seedCampaignWorld, simPromoTemplate } from '../server/test/helpers/campaign-fixtures';
import { startWhatsAppSimProcess, type RemoteWhatsAppSim } from '../server/test/helpers/whatsapp-sim-process';
import { spawnReady, stopChild } from './lib/child';
import { openBenchDatabase } from './lib/database';
import { fmt, printTable } from './lib/stats';

const { values: args } = parseArgs({
  options: {
    large: { type: 'boolean', default: false },
    rates: { type: 'string', default: '80,1000' },
    sizes: { type: 'string' },
    only: { type: 'string', default: 'one,three,kill,recovery' },
  },
});
const RATES = args.rates.split(',').map(Number);
const SIZES = (args.sizes ?? (args.large ? '3000,30000' : '3000')).split(',').map(Number);
const ONLY = new Set(args.only.split(','));
const JITTER = { baseMs: 5, tailMeanMs: 15, capMs: 80 };
const here = dirname(fileURLToPath(import.meta.url));
const ENGINE_CHILD = join(here, '../server/test/helpers/engine-child.ts');
const APP_SECRET = 'pacing-bench-secret-pacing-bench-secret';

type Row = string[];
const rows: Row[] = [];

/** Replays Meta's check on arrival times: an arrival is refused when the window (t − 1 s, t] already holds `rate` accepted ones. */
function wouldRefuse(sorted: number[], rate: number): number {
  const accepted: number[] = [];
  let head = 0;
  let refused = 0;
  for (const t of sorted) {
    while (head < accepted.length && t - accepted[head] >= 1000) head++;
    if (accepted.length - head >= rate) refused++;
    else accepted.push(t);
  }
  return refused;
}

function maxInWindow(sorted: number[]): number {
  let best = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end++) {
    while (sorted[end] - sorted[start] >= 1000) start++;
    best = Math.max(best, end - start + 1);
  }
  return best;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

interface Worker {
  child: ChildProcess;
  instanceId: string;
}

async function spawnWorker(env: NodeJS.ProcessEnv): Promise<Worker> {
  const port = await freePort();
  const { child, match } = await spawnReady(ENGINE_CHILD, { ...env, PORT: String(port) }, /READY \d+ (\S+)/);
  return { child, instanceId: match[1]! };
}

const stopWorker = (w: Worker, signal: NodeJS.Signals = 'SIGTERM') => stopChild(w.child, signal);

interface RunResult {
  arrivals: number[];
  handoverMs: number;
  /** When the 130429 fault was injected (epoch ms, the simulator's clock too). */
  faultAt?: number;
}

/** One campaign of `size` recipients at `rate` on a fresh number and database, sent by `workers` processes. */
async function runCampaign(
  sim: RemoteWhatsAppSim,
  o: { rate: number; size: number; workers: number; kill?: boolean; fault?: boolean },
): Promise<RunResult> {
  const bench = await openBenchDatabase('postgres', 'bench_pacing');
  const { database } = bench;
  const workers: Worker[] = [];
  try {
    const env = {
      ...process.env,
      DATABASE_URL: bench.url!,
      APP_SECRET,
      ROLE: 'worker',
      WHATSAPP_GRAPH_URL: sim.graphUrl,
      LOG_LEVEL: 'silent',
      DATA_DIR: '/tmp/masivo-bench-pacing',
      CAMPAIGN_ENGINE_OPTIONS: JSON.stringify({
        tickMs: 200,
        graceMs: 4_000,
        responseTimeoutMs: 1_500,
        leaseTtlMs: 2_500,
        leaseRenewMs: 500,
        leaseScanMs: 100,
        refreshMs: 200,
      }),
    };
    const ctx = createContext(loadConfig(env), database);
    const [user] = await rowsOf<{ id: number }>(database.db, sql`insert into users (email, password_hash) values ('pacing@example.com', 'x') returning id`);
    const userId = Number(user.id);
    const suffix = randomBytes(3).toString('hex');
    const number = { phoneNumberId: `pace-${suffix}`, wabaId: `waba-${suffix}`, token: `tok-${suffix}` };
    // Far above the rate: the replay of Meta's rule on arrival times counts what it would refuse.
    await sim.control('POST', '/numbers', { ...number, displayPhoneNumber: '5491100000000', throughput: 100_000 });
    await sim.control('POST', '/templates', simPromoTemplate(number.wabaId));
    const world = await seedCampaignWorld(database.db, ctx.secrets, userId, { number: { ...number, ratePerSecond: o.rate }, contacts: o.size });
    await database.db.execute(
      sql`update whatsapp_accounts set throughput_level = ${o.rate > 80 ? 'HIGH' : 'STANDARD'} where id = ${world.whatsappAccountId}`,
    );
    for (let i = 0; i < o.workers; i++) workers.push(await spawnWorker(env));
    const c = await createCampaign(ctx, userId, {
      name: 'Ritmo',
      kommo_account_id: world.kommoAccountId,
      whatsapp_account_id: world.whatsappAccountId,
      template_id: world.templateId,
    });
    await startCampaign(ctx, userId, c.id);

    const sendSeconds = o.size / o.rate;
    if (o.kill) {
      // Mid-run, kill the process holding the number; the others take it over.
      await new Promise((r) => setTimeout(r, (sendSeconds * 1000) / 2));
      const [lease] = await rowsOf<{ owner: string }>(database.db, sql`select owner from sender_leases where whatsapp_account_id = ${world.whatsappAccountId}`);
      const holder = workers.find((w) => w.instanceId === lease?.owner);
      if (!holder) throw new Error('no worker holds the lease');
      await stopWorker(holder, 'SIGKILL');
    }
    let faultAt: number | undefined;
    if (o.fault) {
      await new Promise((r) => setTimeout(r, (sendSeconds * 1000) / 2));
      faultAt = Date.now();
      await sim.control('POST', '/fault', { kind: 'code', code: 130429, count: 3, phoneNumberId: number.phoneNumberId });
    }
    const deadline = Date.now() + sendSeconds * 3000 + 120_000;
    for (;;) {
      const campaign = await getCampaign(database.db, userId, c.id);
      if (campaign.status === 'completed') break;
      if (Date.now() > deadline) throw new Error(`campaign not completed: ${JSON.stringify(campaign)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    const arrivals = (await sim.timestamps(number.phoneNumberId)).sort((a, b) => a - b);
    let handoverMs = 0;
    for (let i = 1; i < arrivals.length; i++) handoverMs = Math.max(handoverMs, arrivals[i] - arrivals[i - 1]);
    return { arrivals, handoverMs: o.kill ? handoverMs : 0, faultAt };
  } finally {
    for (const w of workers) await stopWorker(w);
    await bench.close();
  }
}

function report(label: string, rate: number, size: number, r: RunResult) {
  const { arrivals } = r;
  const spanS = (arrivals.at(-1)! - arrivals[0]) / 1000;
  const achieved = (arrivals.length - 1) / spanS;
  const sending = r.handoverMs ? (arrivals.length - 1) / (spanS - r.handoverMs / 1000) : achieved;
  const refused = wouldRefuse(arrivals, rate);
  const maxWindow = maxInWindow(arrivals);
  const pct = (sending / rate) * 100;
  const ok = refused === 0 && maxWindow <= rate && pct >= 97 && (r.handoverMs > 0 || arrivals.length === size);
  rows.push([
    label,
    `${fmt(rate)}`,
    fmt(size),
    `${fmt(achieved, 1)}`,
    `${fmt((achieved / rate) * 100, 1)} %`,
    r.handoverMs ? `${fmt(pct, 1)} % (wait ${fmt(r.handoverMs / 1000, 1)} s)` : '',
    fmt(refused),
    fmt(maxWindow),
    `${fmt(loadavg()[0], 2)}`,
    ok ? 'ok' : 'FAIL',
  ]);
  console.log(rows.at(-1)!.join(' | '));
}

/** After 3 × 130429 injected mid-run: time from the injection to the start of the next full second at ≥ 97 % of the rate. */
function recovery(label: string, rate: number, r: RunResult) {
  const a = r.arrivals;
  const faultAt = r.faultAt!;
  let recoveredAt = Infinity;
  let j = 0;
  for (let i = 0; i < a.length; i++) {
    if (a[i] < faultAt) continue;
    if (j < i) j = i;
    while (j < a.length && a[j] - a[i] < 1000) j++;
    if (j - i >= rate * 0.97) {
      recoveredAt = a[i];
      break;
    }
  }
  rows.push([
    label,
    fmt(rate),
    fmt(a.length),
    '',
    '',
    `back to ≥ 97 % in ${recoveredAt === Infinity ? 'never' : `${fmt((recoveredAt - faultAt) / 1000, 2)} s`}`,
    '',
    fmt(maxInWindow(a)),
    `${fmt(loadavg()[0], 2)}`,
    recoveredAt - faultAt < 5_000 ? 'ok' : 'FAIL',
  ]);
  console.log(rows.at(-1)!.join(' | '));
}

const started = Date.now();
const sim = await startWhatsAppSimProcess({ latencyJitter: JITTER, readRate: 0 });
try {
  for (const size of SIZES) {
    for (const rate of RATES) {
      if (ONLY.has('one')) report('1 worker', rate, size, await runCampaign(sim, { rate, size, workers: 1 }));
      if (ONLY.has('three')) report('3 workers', rate, size, await runCampaign(sim, { rate, size, workers: 3 }));
      if (ONLY.has('kill')) report('3 workers, holder killed', rate, size, await runCampaign(sim, { rate, size, workers: 3, kill: true }));
    }
  }
  if (ONLY.has('recovery')) {
    for (const rate of RATES) recovery('1 worker, 3 × 130429 injected', rate, await runCampaign(sim, { rate, size: Math.max(3000, rate * 10), workers: 1, fault: true }));
  }
} finally {
  await sim.close();
}

const header = ['scenario', 'rate', 'recipients', 'achieved msg/s', '% of rate', 'without handover', '130429', 'max 1-s', 'load', ''];
console.log(`\nlatency jitter ${JITTER.baseMs} ms + exp(${JITTER.tailMeanMs} ms), cap ${JITTER.capMs} ms; targets: 0 × 130429, max 1-s ≤ rate, ≥ 97 % of the rate\n`);
printTable(rows, header);
console.log(`\n(${fmt((Date.now() - started) / 1000)} s; load average at the end ${loadavg().map((l) => fmt(l, 2)).join(' ')})`);
process.exit(0);
