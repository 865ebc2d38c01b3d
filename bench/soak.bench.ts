/**
 * Soak: the whole console on real processes for `--minutes` (default 10) on a fresh PostgreSQL
 * database. Two API processes (ROLE=api, API_PROCESSES=2: the cluster of cluster.ts), three
 * ROLE=worker processes, the WhatsApp simulator and the Kommo simulator each in a process of
 * their own. `--numbers` numbers (default 4) send at `--rate` msg/s each (default 500): campaigns
 * of `--contacts` recipients are created and started through the API one after another on each
 * number, so sending never stops; their sent/delivered/read status webhooks flow from the
 * simulator to the API. Meanwhile a full Kommo sync of one Kommo account runs, then a write-back
 * of a completed campaign of that account beside a second full sync. Every `--kill-every` seconds
 * (default 120) one worker process is killed with SIGKILL (round-robin) and started again.
 *
 * Sampled: API latency (a signed-in GET every 250 ms: campaign list, dashboard, campaign detail),
 * every process's RSS every 10 s. Printed with targets (exit 1 if one is missed): no duplicate
 * send, nothing lost, no 130429, Kommo ≤ 7 requests in any 1-s window, memory flat after warm-up,
 * API p95 < 200 ms in every minute.
 *
 *   npm run bench -- soak [--minutes 10] [--rate 500] [--numbers 4] [--contacts 50000] [--kill-every 120]
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import { loadConfig } from '../server/src/config';
import { createContext } from '../server/src/context';
import { rowsOf } from '../server/src/db/sql';
import { insertContacts, insertKommoAccount, insertMappings, insertTemplate, insertWhatsAppAccount, PROMO_COMPONENTS } from '../server/test/helpers/campaign-fixtures';
import { startWhatsAppSimProcess } from '../server/test/helpers/whatsapp-sim-process';
import { forkBench, nextMessage, raisePriority, SIM_PRIORITY, spawnReady, stopChild } from './lib/child';
import { openBenchDatabase } from './lib/database';
import { fmt, percentile, printTable } from './lib/stats';
import type { ThroughputError } from '../simulators/src/whatsapp/phone-numbers';

const WEBHOOK_SECRET = 'bench-webhook-secret';
const APP_SECRET = 'bench-app-secret-bench-app-secret';
const KOMMO_SUB = 'soak';
const KOMMO_TOKEN = 'soak-kommo-token';
const KOMMO_RPS = 7;
const KOMMO_CONTACTS = 20_000;
const WORKERS = 3;
const API_PROCESSES = 2;
const P95_TARGET_MS = 200;
const MEMORY_GROWTH_MAX = 0.1;
/** A number's next campaign starts once its sending campaigns have less than this many seconds of sends left. */
const LEAD_SECONDS = 30;
/** After the soak, started campaigns and their status webhooks get this long to finish. */
const DRAIN_LIMIT_MS = 300_000;

const { values: args } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    rate: { type: 'string', default: '500' },
    numbers: { type: 'string', default: '4' },
    contacts: { type: 'string', default: '50000' },
    'kill-every': { type: 'string', default: '120' },
    'kommo-sim': { type: 'boolean', default: false },
  },
});
const MINUTES = Number(args.minutes);
const RATE = Number(args.rate);
const NUMBERS = Number(args.numbers);
const CONTACTS = Number(args.contacts);
const KILL_EVERY_S = Number(args['kill-every']);
const DURATION_MS = MINUTES * 60_000;
/** Memory is compared from the end of this warm-up (2 minutes, less in shorter runs) to the end. */
const MEMORY_WINDOW_MS = 60_000;
const WARMUP_MS = Math.min(120_000, DURATION_MS * 0.4);

if (args['kommo-sim']) {
  const { startKommoSim } = await import('../simulators/src/kommo/index');
  const sim = await startKommoSim({ rps: KOMMO_RPS, accounts: [{ subdomain: KOMMO_SUB, token: KOMMO_TOKEN, contacts: KOMMO_CONTACTS, seed: 7 }] });
  process.send!({ url: sim.url, baseUrlTemplate: sim.baseUrlTemplate });
  process.on('disconnect', () => void sim.close().then(() => process.exit(0)));
} else {
  await main();
  // Nothing left to wait for: a Kommo watch still polling must not keep the bench alive.
  process.exit(process.exitCode ?? 0);
}

type KommoStats = { requests: number; count429: number; count403: number; perSecondMax: number };
type SimStats = {
  messages: number;
  perNumber: Record<string, number>;
  numbers: Array<{ phoneNumberId: string; throughputErrors: number; throughputErrorLog?: ThroughputError[] }>;
  webhooks: { sent: number; failed: number; pending: number; posts: number };
};

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** VmRSS of a process in MB, or null once it is gone. */
function rssMb(pid: number): number | null {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

function childrenOf(pid: number): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

async function main() {
  const load0 = loadavg();
  console.log(
    `machine: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), ${fmt(totalmem() / 2 ** 30, 1)} GB, load average at start ${load0.map((l) => l.toFixed(2)).join(' / ')} (1/5/15 min)`,
  );
  console.log(
    `soak: ${MINUTES} min, ${NUMBERS} numbers × ${fmt(RATE)} msg/s, campaigns of ${fmt(CONTACTS)} recipients, ${API_PROCESSES} API processes + ${WORKERS} workers, a worker SIGKILLed every ${KILL_EVERY_S} s\n`,
  );

  const kommoChild = forkBench(import.meta.filename, ['--kommo-sim']);
  const kommo = await nextMessage<{ url: string; baseUrlTemplate: string }>(kommoChild, undefined, 'Kommo simulator');
  const kommoControl = async <T>(path: string): Promise<T> => (await fetch(`${kommo.url}/__control${path}`)).json() as Promise<T>;

  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  // One template per campaign a number may run: the simulator's duplicate check (number, recipient,
  // template) then tells a repeat send from the next campaign's.
  const templatesPerNumber = Math.ceil((DURATION_MS / 1000) * RATE / CONTACTS) + 4;
  const numbers = Array.from({ length: NUMBERS }, (_, i) => ({ phoneNumberId: String(910_001 + i), wabaId: String(810_001 + i), token: `soak-tok-${i + 1}` }));
  const wa = await startWhatsAppSimProcess({
    appSecret: WEBHOOK_SECRET,
    webhookUrl: `${base}/api/webhooks/whatsapp`,
    // Not one of the contacts' phones (+54911 and 8 digits from 00000001): the simulator refuses a send to the number itself.
    numbers: numbers.map((n) => ({ ...n, displayPhoneNumber: `5491199999${n.phoneNumberId.slice(-3)}`, throughput: RATE, messagingLimit: 'TIER_UNLIMITED' })),
    templates: numbers.flatMap((n) =>
      Array.from({ length: templatesPerNumber }, (_, k) => ({
        wabaId: n.wabaId, name: `promo${k}`, language: 'es', category: 'MARKETING' as const,
        components: PROMO_COMPONENTS as Array<{ type: string; text?: string; format?: string; example?: unknown }>,
      })),
    ),
    deliveryRate: 1,
    readRate: 1,
    statusDelayMs: 500,
    webhookBatchMax: 100,
  });

  // The simulators stand in for Meta's and Kommo's servers, which do not share our cores: they
  // run ahead of the console's processes, so a starved simulator does not count sends late (and
  // refuse them with 130429) or answer late. Root may raise a priority; anyone else runs them as is.
  const simPriority = raisePriority([wa.pid, kommoChild.pid!], SIM_PRIORITY);

  const bench = await openBenchDatabase('postgres', 'bench_soak', { poolSize: 4 });
  const { database } = bench;
  const db = database.db;
  const env = (extra: Record<string, string>) => ({
    PATH: process.env.PATH,
    DATABASE_URL: bench.url!,
    APP_SECRET,
    WHATSAPP_APP_SECRET: WEBHOOK_SECRET,
    WHATSAPP_GRAPH_URL: wa.graphUrl,
    KOMMO_BASE_URL: kommo.baseUrlTemplate,
    KOMMO_RPS: String(KOMMO_RPS),
    PUBLIC_URL: base,
    DATA_DIR: bench.dataDir,
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    ...extra,
  });
  type Proc = Awaited<ReturnType<typeof spawnReady>>['child'];
  let api: Proc | undefined;
  const workers: Array<Proc | undefined> = [];
  // Should the bench itself die, its console processes go with it (cluster workers follow their primary).
  process.once('exit', () => {
    for (const c of [api, ...workers]) if (c && c.exitCode === null) c.kill('SIGKILL');
  });
  const failures: string[] = [];
  try {
    const startWorker = async () =>
      (await spawnReady('server/src/main.ts', env({ ROLE: 'worker', PORT: '0' }), /Proceso de trabajo iniciado/)).child;
    api = (await spawnReady('server/src/main.ts', env({ ROLE: 'api', API_PROCESSES: String(API_PROCESSES), PORT: String(port) }), /Consola disponible en/)).child;
    for (let i = 0; i < WORKERS; i++) workers.push(await startWorker());

    // Signed in through the API, as the operator.
    const reg = await fetch(`${base}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ first_name: 'Soak', last_name: 'Bench', email: 'soak@example.com', password: 'secreto123' }),
    });
    if (!reg.ok) throw new Error(`register → ${reg.status} ${await reg.text()}`);
    const { token, user } = (await reg.json()) as { token: string; user: { id: number } };
    const orgId = user.id;
    const call = async <T = any>(method: string, path: string, body?: unknown): Promise<T> => {
      const res = await fetch(`${base}/api${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${text.slice(0, 300)}`);
      return (text ? JSON.parse(text) : undefined) as T;
    };

    // Seeded in the database: per number a Kommo account with its contacts, the WhatsApp account
    // and one mapped template per campaign slot (sealed with the processes' APP_SECRET).
    const seedStart = Date.now();
    const ctx = createContext(loadConfig(env({ ROLE: 'api' })), database);
    const lanes: Array<{ phoneNumberId: string; kommoAccountId: number; whatsappAccountId: number; templates: number[]; next: number; campaigns: number[] }> = [];
    for (const n of numbers) {
      const kommoAccountId = await insertKommoAccount(db, ctx.secrets, orgId, `soak${n.phoneNumberId}`);
      const whatsappAccountId = await insertWhatsAppAccount(db, ctx.secrets, orgId, { ...n, ratePerSecond: RATE, kommoAccountId });
      const templates: number[] = [];
      for (let k = 0; k < templatesPerNumber; k++) {
        const id = await insertTemplate(db, orgId, whatsappAccountId, { name: `promo${k}` });
        await insertMappings(db, orgId, id);
        templates.push(id);
      }
      await insertContacts(db, orgId, kommoAccountId, CONTACTS);
      lanes.push({ phoneNumberId: n.phoneNumberId, kommoAccountId, whatsappAccountId, templates, next: 0, campaigns: [] });
    }
    await db.execute(sql`analyze`);
    console.log(`seeded ${fmt(NUMBERS * CONTACTS)} contacts and ${NUMBERS * templatesPerNumber} templates in ${fmt((Date.now() - seedStart) / 1000, 1)} s`);

    const launch = async (lane: (typeof lanes)[number]) => {
      const k = lane.next++;
      if (k >= lane.templates.length) throw new Error('more campaigns than templates');
      const c = await call<{ id: number }>('POST', '/campaigns', {
        name: `Soak ${lane.phoneNumberId} #${k + 1}`,
        kommo_account_id: lane.kommoAccountId,
        whatsapp_account_id: lane.whatsappAccountId,
        template_id: lane.templates[k],
      });
      await call('POST', `/campaigns/${c.id}/start`);
      lane.campaigns.push(c.id);
    };

    // ---- the soak ------------------------------------------------------------------------------
    const t0 = Date.now();
    const elapsed = () => Date.now() - t0;
    let running = true;
    for (const lane of lanes) await launch(lane);

    // Kommo: the account connected through the API, a full sync at once.
    const { phoneFieldId } = await kommoControl<{ phoneFieldId: number }>(`/fields?subdomain=${KOMMO_SUB}`);
    const kommoAccount = await call<{ id: number }>('POST', '/kommo/accounts', { subdomain: KOMMO_SUB, access_token: KOMMO_TOKEN, phone_field_id: phoneFieldId });
    await call('POST', '/kommo/sync-contacts', { account_id: kommoAccount.id, full: true });
    const kommoLog: string[] = [];
    const kommoTask = (async () => {
      const syncDone = async (label: string, from: number) => {
        for (;;) {
          const s = await call<{ sync_status: string; sync_error_message: string | null }>('GET', `/kommo/accounts/${kommoAccount.id}/sync-status`).catch(() => null);
          if (s?.sync_status === 'synced' || s?.sync_status === 'error') {
            kommoLog.push(`${label}: ${s.sync_status}${s.sync_error_message ? ` (${s.sync_error_message})` : ''} in ${fmt((Date.now() - from) / 1000, 1)} s`);
            return s.sync_status === 'synced';
          }
          await sleep(1000);
        }
      };
      const first = Date.now();
      const ok1 = await syncDone('full sync', first);
      // A campaign of the account, completed (its outcomes seeded), with write-back on: the
      // worker writes its results to Kommo while a second full sync of the account runs.
      const [{ n }] = await rowsOf<{ n: number }>(db, sql`select count(*)::int as n from contacts where account_id = ${kommoAccount.id}`);
      await db.execute(sql`update kommo_accounts set writeback_enabled = true, writeback_enabled_at = now() - interval '1 hour',
          writeback_opt_out_tag = 'Baja WhatsApp', writeback_reply_tag = 'Respondió WhatsApp' where id = ${kommoAccount.id}`);
      const [{ id: wbCampaign }] = await rowsOf<{ id: number }>(db, sql`
        insert into campaigns (user_id, name, status, kommo_account_id, filters, total_recipients)
        values (${orgId}, 'Soak write-back', 'sending', ${kommoAccount.id}, '{}'::jsonb, ${n}) returning id`);
      await db.execute(sql`insert into campaign_recipients (campaign_id, user_id, contact_id, phone, phone_key, status, error_message, replied_at, sent_at)
        select ${wbCampaign}, ${orgId}, c.id, c.phone, c.phone_key,
               case when c.kommo_id % 10 = 0 then 'failed' when c.kommo_id % 2 = 0 then 'read' else 'delivered' end,
               case when c.kommo_id % 10 = 0 then 'Número inválido' end,
               case when c.kommo_id % 20 = 1 then now() end, now()
        from (select distinct on (phone_key) * from contacts where account_id = ${kommoAccount.id} and phone_key is not null order by phone_key, id) c`);
      const second = Date.now();
      await db.execute(sql`update campaigns set status = 'completed', completed_at = now() where id = ${wbCampaign}`);
      await call('POST', '/kommo/sync-contacts', { account_id: kommoAccount.id, full: true });
      const syncing = syncDone('second full sync (beside the write-back)', second);
      let wb = { done: 0, total: 0, failed: 0 };
      for (;;) {
        const [p] = await rowsOf<{ pending: number; done: number; failed: number; total: number }>(db, sql`
          select count(*) filter (where stage not in ('done', 'failed'))::int pending, count(*) filter (where kind = 'result' and stage = 'done')::int done,
                 count(*) filter (where stage = 'failed')::int failed, count(*) filter (where kind = 'result')::int total
          from kommo_writeback_items where campaign_id = ${wbCampaign}`);
        wb = p;
        if (p.total > 0 && p.pending === 0) break;
        if (!running && elapsed() > DURATION_MS + DRAIN_LIMIT_MS) break;
        await sleep(1000);
      }
      kommoLog.push(`write-back: ${fmt(wb.done)} of ${fmt(wb.total)} contacts written (${wb.failed} failed) in ${fmt((Date.now() - second) / 1000, 1)} s`);
      const ok2 = await syncing;
      return { ok: ok1 && ok2 && wb.total > 0 && wb.done === wb.total, recipients: n };
    })().catch((e) => {
      failures.push(`Kommo: ${String(e)}`);
      return { ok: false, recipients: 0 };
    });

    // Feeding: a number's next campaign starts before its current ones run dry.
    const feeder = (async () => {
      while (running) {
        const pending = await rowsOf<{ wa: number; pending: number }>(db, sql`
          select whatsapp_account_id as wa, coalesce(sum(pending_count), 0)::int as pending
          from campaigns where user_id = ${orgId} and status = 'sending' and whatsapp_account_id is not null group by 1`);
        for (const lane of lanes) {
          const p = pending.find((r) => Number(r.wa) === lane.whatsappAccountId)?.pending ?? 0;
          if (running && p < RATE * LEAD_SECONDS) await launch(lane).catch((e) => failures.push(`start: ${String(e)}`));
        }
        await sleep(1000);
      }
    })();

    // Chaos: one worker SIGKILLed every KILL_EVERY_S, round-robin, and started again.
    const kills: string[] = [];
    const starts = new Map<number, number>(); // pid → started (ms since t0)
    for (const w of workers) starts.set(w!.pid!, 0);
    const chaos = (async () => {
      let k = 0;
      for (;;) {
        const at = (k + 1) * KILL_EVERY_S * 1000;
        if (at >= DURATION_MS - 5_000) return;
        while (elapsed() < at) await sleep(250);
        const slot = k++ % WORKERS;
        const victim = workers[slot]!;
        const gone = new Promise((r) => victim.once('exit', r));
        victim.kill('SIGKILL');
        await gone;
        const restartAt = Date.now();
        workers[slot] = await startWorker();
        starts.set(workers[slot]!.pid!, elapsed());
        kills.push(`${fmt(at / 1000)} s: worker ${slot + 1} (pid ${victim.pid}) killed, pid ${workers[slot]!.pid} ready in ${fmt((Date.now() - restartAt) / 1000, 1)} s`);
      }
    })();

    // Probes: API latency every 250 ms, RSS and the simulator's count every 10 s.
    const latencies: Array<{ t: number; ms: number; ok: boolean }> = [];
    const probes = (async () => {
      const paths = ['/campaigns', '/dashboard/pending', ''];
      let i = 0;
      while (elapsed() < DURATION_MS) {
        const next = Date.now() + 250;
        const last = lanes[i % lanes.length]!.campaigns.at(-1);
        const path = paths[i++ % paths.length] || `/campaigns/${last}`;
        const t = performance.now();
        const res = await fetch(`${base}/api${path}`, { headers: { authorization: `Bearer ${token}` } }).catch(() => null);
        await res?.arrayBuffer();
        latencies.push({ t: elapsed(), ms: performance.now() - t, ok: res?.ok === true });
        await sleep(Math.max(0, next - Date.now()));
      }
    })();
    const rss = new Map<string, Array<{ t: number; mb: number }>>();
    const sent: Array<{ t: number; messages: number }> = [];
    const sample = async () => {
      const t = elapsed();
      const procs: Array<[string, number]> = [[`api primary (pid ${api!.pid})`, api!.pid!]];
      for (const pid of childrenOf(api!.pid!)) procs.push([`api process (pid ${pid})`, pid]);
      workers.forEach((w, i) => w && procs.push([`worker ${i + 1} (pid ${w.pid})`, w.pid!]));
      for (const [label, pid] of procs) {
        const mb = rssMb(pid);
        if (mb === null) continue;
        if (!rss.has(label)) rss.set(label, []);
        rss.get(label)!.push({ t, mb });
      }
      const s = await wa.control<SimStats>('GET', '/stats').catch(() => null);
      if (s) sent.push({ t, messages: s.messages });
    };
    await sample();
    const sampler = setInterval(() => void sample(), 10_000);
    const progress = setInterval(() => {
      const s = sent.at(-1);
      const l = latencies.filter((x) => x.t > elapsed() - 60_000).map((x) => x.ms);
      console.log(`  ${fmt(elapsed() / 1000)} s: ${fmt(s?.messages ?? 0)} sent, API p95 last minute ${fmt(percentile(l, 0.95))} ms, load ${loadavg()[0]!.toFixed(2)}`);
    }, 30_000);

    await sleep(DURATION_MS);
    const loadEnd = loadavg();
    running = false;
    await Promise.all([feeder, probes, chaos]);
    await sample();
    clearInterval(sampler);
    clearInterval(progress);
    const sentAtEnd = sent.at(-1)?.messages ?? 0;

    // ---- drain: every started campaign to its end, every status webhook applied -------------
    const ids = lanes.flatMap((l) => l.campaigns);
    const drainStart = Date.now();
    let left = { open: 0, pending: 0, inbox: 0, hooks: 0 };
    for (;;) {
      const [r] = await rowsOf<{ open: number; pending: number }>(db, sql`
        select count(*) filter (where status <> 'completed')::int as open, coalesce(sum(pending_count), 0)::int as pending
        from campaigns where id = any(${sql.raw(`array[${ids.join(',')}]::int[]`)})`);
      const [inbox] = await rowsOf<{ n: number }>(db, sql`select count(*)::int as n from webhook_events`);
      const hooks = (await wa.control<SimStats>('GET', '/stats')).webhooks.pending;
      left = { open: r.open, pending: r.pending, inbox: inbox.n, hooks };
      if ((r.open === 0 && inbox.n === 0 && hooks === 0) || Date.now() - drainStart > DRAIN_LIMIT_MS) break;
      await sleep(1000);
    }
    const drainedS = (Date.now() - drainStart) / 1000;
    const kommoResult = await Promise.race([kommoTask, sleep(5_000).then(() => null)]);

    // ---- figures ---------------------------------------------------------------------------
    const sim = await wa.control<SimStats>('GET', '/stats');
    const dups = await wa.duplicates();
    const extraSends = dups.reduce((a, d) => a + d.count - 1, 0);
    const maxWindow = await Promise.all(numbers.map((n) => wa.maxInAnyWindow(n.phoneNumberId)));
    const perLane = await rowsOf<{ wa: number; accepted: number; unfinished: number; total: number; sent: number; delivered: number; read: number; failed: number }>(db, sql`
      select c.whatsapp_account_id as wa, count(r.*) filter (where r.wamid is not null)::int as accepted,
             count(r.*) filter (where r.status in ('pending', 'sending'))::int as unfinished, count(r.*)::int as total,
             count(r.*) filter (where r.sent_at is not null)::int as sent, count(r.*) filter (where r.delivered_at is not null)::int as delivered,
             count(r.*) filter (where r.read_at is not null)::int as read, count(r.*) filter (where r.status = 'failed')::int as failed
      from campaigns c join campaign_recipients r on r.campaign_id = c.id
      where c.id = any(${sql.raw(`array[${ids.join(',')}]::int[]`)}) group by 1`);
    const kStats = await kommoControl<KommoStats>('/stats');
    // Recipients that got no message, by final status and reason.
    const unsent = await rowsOf<{ status: string; error: string | null; n: number }>(db, sql`
      select r.status, left(r.error_message, 80) as error, count(*)::int as n from campaign_recipients r
      where r.campaign_id = any(${sql.raw(`array[${ids.join(',')}]::int[]`)}) and r.wamid is null group by 1, 2 order by 3 desc`);

    const byLane = lanes.map((lane) => {
      const r = perLane.find((x) => Number(x.wa) === lane.whatsappAccountId);
      return { lane, r, simCount: sim.perNumber[lane.phoneNumberId] ?? 0, errors: sim.numbers.find((n) => n.phoneNumberId === lane.phoneNumberId)?.throughputErrors ?? 0 };
    });
    const total = (f: (x: NonNullable<(typeof perLane)[number]>) => number) => perLane.reduce((a, x) => a + f(x), 0);
    const unfinished = total((x) => x.unfinished);
    const mismatched = byLane.filter((b) => (b.r?.accepted ?? 0) !== b.simCount);
    const errors130429 = byLane.reduce((a, b) => a + b.errors, 0);
    const statusesApplied = total((x) => x.sent + x.delivered + x.read);

    // Latency per minute.
    const minutes = Math.ceil(DURATION_MS / 60_000);
    const perMinute = Array.from({ length: minutes }, (_, m) => {
      const xs = latencies.filter((l) => l.t >= m * 60_000 && l.t < (m + 1) * 60_000);
      return { m: m + 1, n: xs.length, p50: percentile(xs.map((x) => x.ms), 0.5), p95: percentile(xs.map((x) => x.ms), 0.95), max: Math.max(0, ...xs.map((x) => x.ms)), errors: xs.filter((x) => !x.ok).length };
    });
    const p95All = percentile(latencies.map((l) => l.ms), 0.95);
    const failedProbes = latencies.filter((l) => !l.ok).length;

    // Messages per minute (the simulator's accepted sends).
    const sentAt = (t: number) => {
      const before = sent.filter((s) => s.t <= t).at(-1);
      return before?.messages ?? 0;
    };

    // Memory: the median RSS of the first minute after warm-up (a restarted worker: its own)
    // against the median of the last minute. A process's heap swings between collections (a
    // worker's by about 130 MB), so two single samples would measure the swing, not growth.
    const median = (v: number[]) => percentile(v, 0.5);
    const memory = [...rss.entries()].map(([label, xs]) => {
      const pid = Number(/pid (\d+)/.exec(label)![1]);
      const from = (starts.get(pid) ?? 0) + WARMUP_MS;
      const after = xs.filter((x) => x.t >= from);
      const end = xs.at(-1)!.t;
      const head = after.filter((x) => x.t < from + MEMORY_WINDOW_MS);
      const tail = after.filter((x) => x.t > end - MEMORY_WINDOW_MS && x.t >= from + MEMORY_WINDOW_MS);
      // Judged when the two minutes do not overlap: at least two minutes after warm-up.
      const judged = head.length >= 3 && tail.length >= 3;
      const base = head.length ? median(head.map((x) => x.mb)) : undefined;
      const last = judged ? median(tail.map((x) => x.mb)) : xs.at(-1)!.mb;
      const growth = judged && base ? last / base - 1 : 0;
      return { label, first: xs[0]!.mb, base, last, max: Math.max(...xs.map((x) => x.mb)), span: judged ? (end - from) / 1000 : 0, judged, growth };
    });

    console.log('\nAPI latency (signed-in GET every 250 ms: campaign list, dashboard, campaign detail), per minute:');
    printTable(
      perMinute.map((m) => {
        const msgs = sentAt(m.m * 60_000) - sentAt((m.m - 1) * 60_000);
        return [String(m.m), fmt(m.n), `${fmt(m.p50)} / ${fmt(m.p95)} / ${fmt(m.max)}`, String(m.errors), fmt(msgs / 60)];
      }),
      ['minute', 'probes', 'p50 / p95 / max (ms)', 'failed', 'msg/s (simulator)'],
    );
    console.log('\nmemory (RSS, MB; medians of the first minute after warm-up and of the last minute; restarted workers from their own warm-up):');
    printTable(
      memory.map((x) => [x.label, fmt(x.first), x.base === undefined ? '—' : fmt(x.base), fmt(x.last), fmt(x.max), x.judged ? `${x.growth >= 0 ? '+' : ''}${fmt(x.growth * 100, 1)} % over ${fmt(x.span)} s` : 'too short to judge']),
      ['process', 'first', 'first minute after warm-up', 'last minute', 'max', 'growth'],
    );
    console.log('\nper number:');
    printTable(
      byLane.map((b) => [b.lane.phoneNumberId, String(b.lane.campaigns.length), fmt(b.simCount), fmt(b.r?.accepted ?? 0), fmt(b.r?.total ?? 0), fmt(b.r?.unfinished ?? 0), String(maxWindow[lanes.indexOf(b.lane)]), String(b.errors)]),
      ['number', 'campaigns', 'simulator accepted', 'console accepted (wamid)', 'recipients', 'not final', 'max sends in 1 s', '130429'],
    );
    console.log(`\nrecipients without a message: ${unsent.length ? unsent.map((u) => `${fmt(u.n)} ${u.status}${u.error ? ` («${u.error}»)` : ''}`).join('; ') : 'none'}`);
    if (kills.length) console.log(`\nkills:\n  ${kills.join('\n  ')}`);
    // When each 130429 came (seconds since the start), to set beside the kills: bursts of one second.
    for (const n of sim.numbers) {
      const log = n.throughputErrorLog ?? [];
      if (!log.length) continue;
      const bursts = new Map<number, { n: number; late: number; full: number }>();
      for (const e of log) {
        const second = Math.floor((e.at - t0) / 1000);
        const b = bursts.get(second) ?? { n: 0, late: 0, full: 0 };
        b.n++;
        b.late = Math.max(b.late, e.checkedAfterMs);
        b.full = Math.max(b.full, e.inWindow);
        bursts.set(second, b);
      }
      const list = [...bursts].map(([s, b]) => `${s} s ×${b.n} (checked ≤ ${fmt(b.late)} ms late, window ${b.full})`);
      console.log(`\n130429 on ${n.phoneNumberId}: ${list.join('; ')}`);
    }
    console.log(`\nKommo: ${kommoLog.join('; ') || 'not finished'}`);
    if (failures.length) console.log(`\nerrors: ${failures.slice(0, 5).join('; ')}`);

    const memOk = memory.every((x) => !x.judged || x.growth < MEMORY_GROWTH_MAX);
    const rows: Array<[string, string, string, boolean]> = [
      ['messages sent (simulator accepted, soak window / with drain)', `${fmt(sentAtEnd)} / ${fmt(sim.messages)}`, '', true],
      ['msg/s achieved in the soak window', fmt(sentAtEnd / (DURATION_MS / 1000)), `${fmt(RATE * NUMBERS)} asked`, true],
      ['status webhooks (simulator: events delivered / POSTs / failed)', `${fmt(sim.webhooks.sent)} / ${fmt(sim.webhooks.posts)} / ${fmt(sim.webhooks.failed)}`, '', true],
      ['statuses applied (sent + delivered + read on recipients)', `${fmt(statusesApplied)} (${fmt(total((x) => x.read))} read)`, '', true],
      ['duplicate sends (same number, recipient, campaign template / callback data)', `${fmt(extraSends)} (${dups.length} keys)`, '0', extraSends === 0],
      ['recipients not in a final state', `${fmt(unfinished)} of ${fmt(total((x) => x.total))}`, '0', unfinished === 0 && left.open === 0],
      ['simulator accepted = console accepted, per number', mismatched.length ? mismatched.map((b) => `${b.lane.phoneNumberId}: ${b.simCount} ≠ ${b.r?.accepted ?? 0}`).join(', ') : 'equal on every number', 'equal', mismatched.length === 0],
      ['130429 (over the number throughput)', fmt(errors130429), '0', errors130429 === 0],
      ['Kommo: max requests in any 1 s / 429s', `${kStats.perSecondMax} / ${kStats.count429} (${fmt(kStats.requests)} requests)`, `≤ ${KOMMO_RPS} / 0`, kStats.perSecondMax <= KOMMO_RPS && kStats.count429 === 0],
      ['Kommo sync + write-back completed', kommoResult ? (kommoResult.ok ? 'yes' : 'NO') : 'not finished', 'yes', kommoResult?.ok === true],
      ['memory growth after warm-up, worst process', `${fmt(Math.max(0, ...memory.filter((x) => x.judged).map((x) => x.growth * 100)), 1)} %`, `< ${MEMORY_GROWTH_MAX * 100} %`, memOk],
      ['API p95, overall / worst minute', `${fmt(p95All)} / ${fmt(Math.max(...perMinute.map((m) => m.p95)))} ms (${failedProbes} failed of ${fmt(latencies.length)})`, `< ${P95_TARGET_MS} ms`, perMinute.every((m) => m.p95 < P95_TARGET_MS) && failedProbes === 0],
      ['worker kills (SIGKILL) survived', String(kills.length), '', true],
      ['drain after the soak', `${fmt(drainedS, 1)} s${left.open || left.inbox || left.hooks ? ` (left: ${left.open} campaigns open, ${left.inbox} inbox, ${left.hooks} webhooks)` : ''}`, '', true],
      ['machine', `${cpus().length} cores; load ${load0[0]!.toFixed(2)} at start, ${loadEnd.map((l) => l.toFixed(2)).join(' / ')} at the end (1/5/15 min)`, '', true],
      ['simulators\' priority (nice)', simPriority ? `${SIM_PRIORITY} (the console's processes 0)` : 'could not be raised: all at 0', '', true],
    ];
    console.log('');
    printTable(rows.map(([a, b, c, ok]) => [a, b, c, c ? (ok ? 'ok' : 'MISS') : '']), ['', 'measured', 'target', '']);
    if (rows.some(([, , c, ok]) => c && !ok) || failures.length) process.exitCode = 1;
  } finally {
    for (const w of workers) if (w) await stopChild(w);
    if (api) await stopChild(api);
    await wa.close();
    kommoChild.disconnect();
    await bench.close();
  }
}
