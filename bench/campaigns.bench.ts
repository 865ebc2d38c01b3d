/**
 * Campaign sender speed and safety, against the WhatsApp simulator running in its
 * own process, with delivery webhooks flowing back to the server:
 *   - one number at 80 and at 1,000 msg/s: achieved rate (target within 2 %) and the largest
 *     number of sends the simulator saw in any one-second window (must not exceed the rate);
 *   - several numbers at once: aggregate msg/s on PostgreSQL (target ≥ 3,900) and on the
 *     embedded PGlite (target ≥ 900, with every rule on);
 *   - pause latency: requests the simulator receives after pause returns (in-process pause
 *     and a pause written by another process);
 *   - multi (only when asked): ONE campaign across 4 numbers of one portfolio at 1,000 msg/s
 *     each, the simulator enforcing each number's throughput: aggregate msg/s (target ≥ 3,900),
 *     130429 refusals (0) and people sent more than once or from two numbers (0).
 *
 *   npx tsx bench/campaigns.bench.ts [--only rate,aggregate,pglite,pause,multi] [--seconds 12] [--pglite-rate 250] [--rollups]
 * (the audience freeze has its own bench: freeze.bench.ts)
 *
 * PostgreSQL databases are created for the run and dropped after it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import { getCampaign } from '../server/src/services/campaigns/campaign-queries';
import { pauseCampaign } from '../server/src/services/campaigns/pause-campaign';
import { rowsOf } from '../server/src/db/sql';
import { addNumber, addPortfolioNumbers, launch, rateOf, startStack, startTimed, waitCompleted } from './lib/campaign-stack';
import { fmt, printTable } from './lib/stats';

const { values: args } = parseArgs({
  options: {
    only: { type: 'string', default: 'rate,aggregate,pglite,pause' },
    seconds: { type: 'string', default: '12' },
    /** Per-number rate of the PGlite run (4 numbers). */
    'pglite-rate': { type: 'string', default: '250' },
    /** Run the charts' rollup job beside the engine, as a worker process does (multi only). */
    rollups: { type: 'boolean', default: false },
  },
});
const ONLY = new Set(args.only.split(','));
const SECONDS = Number(args.seconds);
const rows: Array<[string, string, string, string]> = [];
const report = (what: string, value: string, target: string, ok: boolean | null) =>
  rows.push([what, value, target, ok === null ? '' : ok ? 'ok' : 'FAIL']);

async function oneSender(rate: number) {
  const stack = await startStack('postgres');
  try {
    const n = Math.round(rate * SECONDS);
    const { world, phoneNumberId } = await addNumber(stack, rate, n);
    const c = await launch(stack, world);
    await waitCompleted(stack, [c.id]);
    const times = await stack.sim.timestamps(phoneNumberId);
    const achieved = rateOf(times);
    const maxWindow = await stack.sim.maxInAnyWindow(phoneNumberId, 1000);
    const deviation = Math.abs(achieved - rate) / rate;
    report(`one number at ${rate} msg/s (${fmt(n)} msgs, PostgreSQL)`, `${fmt(achieved, 1)} msg/s (${fmt(deviation * 100, 2)} % off)`, 'within 2 %', deviation <= 0.02);
    report(`  largest 1-s window at ${rate} msg/s`, fmt(maxWindow), `≤ ${rate}`, maxWindow <= rate);
    const dups = await stack.sim.duplicates();
    report(`  duplicates at ${rate} msg/s`, fmt(dups.length), '0', dups.length === 0);
  } finally {
    await stack.close();
  }
}

async function aggregate(kind: 'postgres' | 'pglite', numbers: number, ratePerNumber: number, target: number) {
  const stack = await startStack(kind);
  try {
    const audience = Math.round(ratePerNumber * SECONDS);
    const made = [];
    for (let i = 0; i < numbers; i++) made.push(await addNumber(stack, ratePerNumber, audience));
    const work0 = await workSoFar(stack, kind);
    const started = Date.now();
    const campaigns = [];
    const launches: number[] = [];
    for (const m of made) {
      const t0 = Date.now();
      campaigns.push(await launch(stack, m.world));
      launches.push(Date.now() - t0);
    }
    const done = await waitCompleted(stack, campaigns.map((c) => c.id));
    const completedIn = (Date.now() - started) / 1000;
    const perNumber = await Promise.all(made.map((m) => stack.sim.timestamps(m.phoneNumberId)));
    const all = perNumber.flat().sort((a, b) => a - b);
    const throughput = rateOf(all);
    // While every number sends: from the last number's first send to the first number's last one.
    const from = Math.max(...perNumber.map((t) => t[0]));
    const to = Math.min(...perNumber.map((t) => t.at(-1)!));
    const overlap = all.filter((t) => t >= from && t <= to).length / ((to - from) / 1000);
    const windows = await Promise.all(made.map((m) => stack.sim.maxInAnyWindow(m.phoneNumberId, 1000)));
    const label = kind === 'postgres' ? 'PostgreSQL' : 'PGlite';
    report(
      `${numbers} numbers × ${ratePerNumber} msg/s on ${label} (${fmt(all.length)} msgs)`,
      `${fmt(throughput)} msg/s aggregate`,
      `≥ ${fmt(target)}`,
      throughput >= target,
    );
    report(`  while all ${numbers} send (${fmt((to - from) / 1000, 1)} s)`, `${fmt(overlap)} msg/s aggregate`, '', null);
    report(`  per number`, perNumber.map((t) => `${fmt(rateOf(t))}/s`).join(', '), `${fmt(ratePerNumber)} each`, null);
    report(`  first sends after the first number's`, perNumber.map((t) => `${fmt(t[0] - perNumber[0][0])} ms`).join(', '), '', null);
    // Each start freezes its audience while the numbers started before it already send.
    report(`  each start, freeze included (${label})`, launches.map((ms) => `${fmt(ms)} ms`).join(', '), '', null);
    report(`  start to all completed (${label})`, `${fmt(completedIn, 1)} s (${fmt(all.length / completedIn)} msg/s)`, '', null);
    report(`  largest 1-s window per number (${label})`, windows.join(', '), `≤ ${ratePerNumber}`, windows.every((w) => w <= ratePerNumber));
    // Let the last webhooks land, then compare what the server counted with what was sent.
    await stack.sim.control('POST', '/flush');
    await new Promise((r) => setTimeout(r, 1_500));
    const final = await Promise.all(done.map((c) => getCampaign(stack.database.db, stack.userId, c.id)));
    const sent = final.reduce((a, c) => a + c.messages_sent, 0);
    const delivered = final.reduce((a, c) => a + c.delivered_count, 0);
    const work1 = await workSoFar(stack, kind);
    const work = perMessage(work0, work1, all.length);
    report(`  work per message (${label})`, work, '', null);
    if (kind === 'postgres') report(`  rows written per message, by table`, writesPerMessage(work0, work1, all.length), '', null);
    const dups = await stack.sim.duplicates();
    report(`  sent / delivered counted (${label})`, `${fmt(sent)} / ${fmt(delivered)}`, `${fmt(all.length)} each`, sent === all.length && delivered === all.length);
    report(`  duplicates (${label})`, fmt(dups.length), '0', dups.length === 0);
    report(`  simulator's priority (nice)`, simPriorityText(stack.simPriority), '', null);
  } finally {
    await stack.close();
  }
}

/** The simulator stands in for Meta's servers, which do not share our cores (bench/lib/child.ts). */
const simPriorityText = (nice: number) => (nice ? `${nice} (the console's process 0)` : 'could not be raised: all at 0');

interface Work {
  cpu: NodeJS.CpuUsage;
  sim: number | null;
  postgres: number | null;
  db: Record<string, number> | null;
  tables?: Map<string, { written: number; hot: number }>;
}

/** A process's CPU fields from /proc/<pid>/stat: its own user and system time, and its reaped children's. */
function cpuTicks(pid: number | string): { own: number; children: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command's closing parenthesis: utime, stime, cutime, cstime are the 12th to 15th.
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ').map(Number);
  return { own: f[11]! + f[12]!, children: f[13]! + f[14]! };
}

/** CPU seconds (user + system) a process has used; null where there is no /proc. */
function procCpuSeconds(pid: number): number | null {
  try {
    return cpuTicks(pid).own / CLOCK_TICKS;
  } catch {
    return null;
  }
}

/**
 * CPU seconds of every PostgreSQL process on this machine (the server runs here), with the
 * backends that ended during the run (counted in their parent's reaped children's times).
 */
function postgresCpuSeconds(): number | null {
  let total = 0;
  for (const pid of existsSync('/proc') ? readdirSync('/proc').filter((d) => /^\d+$/.test(d)) : []) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'postgres') continue;
      const t = cpuTicks(pid);
      total += t.own + t.children;
    } catch {
      // Ended while being read.
    }
  }
  return total ? total / CLOCK_TICKS : null;
}
const CLOCK_TICKS = 100;

/**
 * What the run cost, counted rather than timed (so a busy machine does not change it): this
 * process's CPU (the API taking the webhooks, the engine) and, on PostgreSQL, the database's
 * own counters (buffers touched, rows written, transactions).
 */
async function workSoFar(stack: Awaited<ReturnType<typeof startStack>>, kind: 'postgres' | 'pglite'): Promise<Work> {
  const cpu = process.cpuUsage();
  const sim = procCpuSeconds(stack.sim.pid);
  if (kind !== 'postgres') return { cpu, sim, postgres: null, db: null };
  // The statistics of other backends reach the shared counters within a second of their last transaction.
  await new Promise((r) => setTimeout(r, 1_100));
  const [db] = await rowsOf<Record<string, number>>(
    stack.database.db,
    sql`select blks_hit + blks_read as buffers, tup_inserted + tup_updated + tup_deleted as rows_written, xact_commit as commits
        from pg_stat_database where datname = current_database()`,
  );
  const tables = await rowsOf<{ relname: string; written: number; hot: number }>(
    stack.database.db,
    sql`select relname, n_tup_ins + n_tup_upd + n_tup_del as written, n_tup_hot_upd as hot from pg_stat_user_tables`,
  );
  return { cpu, sim, postgres: postgresCpuSeconds(), db, tables: new Map(tables.map((t) => [t.relname, { written: Number(t.written), hot: Number(t.hot) }])) };
}

/** The tables written most per message, with how many of their updates were HOT (no index entries). */
function writesPerMessage(a: Work, b: Work, messages: number): string {
  if (!a.tables || !b.tables) return '';
  return [...b.tables]
    .map(([name, t]) => ({ name, written: (t.written - (a.tables!.get(name)?.written ?? 0)) / messages, hot: (t.hot - (a.tables!.get(name)?.hot ?? 0)) / messages }))
    .filter((t) => t.written >= 0.01)
    .sort((x, y) => y.written - x.written)
    .slice(0, 6)
    .map((t) => `${t.name} ${fmt(t.written, 2)}${t.hot >= 0.01 ? ` (${fmt(t.hot, 2)} HOT)` : ''}`)
    .join(', ');
}

function perMessage(a: Work, b: Work, messages: number): string {
  const cpuUs = (b.cpu.user + b.cpu.system - a.cpu.user - a.cpu.system) / messages;
  const parts = [`${fmt(cpuUs)} µs CPU here`];
  const us = (x: number | null, y: number | null) => (x === null || y === null ? null : ((y - x) * 1e6) / messages);
  const sim = us(a.sim, b.sim);
  const pg = us(a.postgres, b.postgres);
  if (sim !== null) parts.push(`${fmt(sim)} µs in the simulator`);
  if (pg !== null) parts.push(`${fmt(pg)} µs in PostgreSQL`);
  if (sim !== null && pg !== null) parts.push(`${fmt(cpuUs + sim + pg)} µs in all`);
  if (a.db && b.db) {
    const d = (k: string) => (Number(b.db![k]) - Number(a.db![k])) / messages;
    parts.push(`${fmt(d('buffers'), 1)} buffers`, `${fmt(d('rows_written'), 2)} rows written`, `${fmt(d('commits'), 3)} commits`);
  }
  return parts.join(', ');
}

/** One campaign across several numbers of one portfolio, each paced at its own rate. */
async function multi(numbers: number, ratePerNumber: number, target: number) {
  const stack = await startStack('postgres', { rollups: args.rollups });
  try {
    const people = Math.round(numbers * ratePerNumber * SECONDS);
    const { world, accountIds, phoneNumberIds } = await addPortfolioNumbers(stack, numbers, ratePerNumber, people);
    const { started, seconds } = await startTimed(stack, world, 'Varios números', accountIds);
    const t0 = Date.now();
    const [done] = await waitCompleted(stack, [started.id]);
    const completedIn = (Date.now() - t0) / 1000;
    const perNumber = await Promise.all(phoneNumberIds.map((id) => stack.sim.timestamps(id)));
    const all = perNumber.flat().sort((a, b) => a - b);
    const throughput = rateOf(all);
    report(
      `one campaign × ${numbers} numbers × ${ratePerNumber} msg/s (${fmt(all.length)} msgs, PostgreSQL${args.rollups ? ', rollup job running' : ''})`,
      `${fmt(throughput)} msg/s aggregate`,
      `≥ ${fmt(target)}`,
      throughput >= target,
    );
    report(`  per number`, perNumber.map((t) => `${fmt(t.length)} at ${fmt(rateOf(t))}/s`).join(', '), '', null);
    if (args.rollups) report(`  rollup job passes while sending`, stack.rollupPasses.map((p) => fmt(p)).join(', ') + ' ms', '', null);
    report(`  start, freeze and assignment included`, `${fmt(seconds * 1000)} ms`, '', null);
    report(`  start to completed`, `${fmt(completedIn, 1)} s (${fmt(all.length / completedIn)} msg/s)`, '', null);
    const stats = await stack.sim.control<{ numbers: Array<{ phoneNumberId: string; throughputErrors: number }> }>('GET', '/stats');
    const refused = stats.numbers.filter((n) => phoneNumberIds.includes(n.phoneNumberId)).reduce((a, n) => a + n.throughputErrors, 0);
    report(`  130429 (over a number's throughput)`, fmt(refused), '0', refused === 0);
    // Every person got exactly one message: nobody was sent twice, so nobody from two numbers.
    const counts = Object.values(await stack.sim.counts());
    const twice = counts.filter((n) => n > 1).length;
    report(`  people sent more than once (from any number)`, fmt(twice), '0', twice === 0 && counts.length === people && done.messages_sent === people);
    const [{ n: mixed }] = await rowsOf<{ n: number }>(
      stack.database.db,
      sql`select count(*)::int as n from (select phone_key from campaign_recipients where campaign_id = ${started.id}
          group by phone_key having count(distinct whatsapp_account_id) > 1) x`,
    );
    report(`  people with two numbers`, fmt(Number(mixed)), '0', Number(mixed) === 0);
    report(`  simulator's priority (nice)`, simPriorityText(stack.simPriority), '', null);
  } finally {
    await stack.close();
  }
}

async function pauseLatency() {
  const stack = await startStack('postgres');
  try {
    const rate = 1000;
    for (const how of ['API in this process', 'another process (database only)'] as const) {
      const { world, phoneNumberId } = await addNumber(stack, rate, rate * 6);
      const c = await launch(stack, world);
      await new Promise((r) => setTimeout(r, 2_000));
      if (how === 'API in this process') await pauseCampaign(stack.ctx, stack.userId, c.id);
      else await stack.database.db.execute(sql`update campaigns set status = 'paused' where id = ${c.id}`);
      const pausedAt = Date.now();
      await new Promise((r) => setTimeout(r, 2_000));
      const times = await stack.sim.timestamps(phoneNumberId);
      const after = times.filter((t) => t > pausedAt);
      const lastMs = after.length ? Math.max(...after) - pausedAt : 0;
      report(
        `pause at ${rate} msg/s via ${how}`,
        `${after.length} requests after, last ${fmt(lastMs)} ms after`,
        '< 1,000 ms',
        lastMs < 1000,
      );
      const [{ n }] = await rowsOf<{ n: number }>(
        stack.database.db,
        sql`select count(*)::int as n from campaign_recipients where campaign_id = ${c.id} and status = 'sending'`,
      );
      report(`  rows left in flight after that pause`, fmt(Number(n)), '0', Number(n) === 0);
    }
  } finally {
    await stack.close();
  }
}

const started = Date.now();
if (ONLY.has('rate')) {
  await oneSender(80);
  await oneSender(1000);
}
if (ONLY.has('aggregate')) await aggregate('postgres', 4, 1000, 3900);
if (ONLY.has('pglite')) await aggregate('pglite', 4, Number(args['pglite-rate']), 900);
if (ONLY.has('pause')) await pauseLatency();
if (ONLY.has('multi')) await multi(4, 1000, 3900);

printTable(rows, ['measure', 'result', 'target', '']);
console.log(`\n(${fmt((Date.now() - started) / 1000, 0)} s)`);
process.exit(0);
