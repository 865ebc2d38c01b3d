/**
 * The results export: `GET /api/campaigns/{id}/results.csv` of a campaign with
 * 100,000 recipients, downloaded through the HTTP server. Target: the server process's resident
 * memory stays under 200 MB while it streams (keyset pages, never the whole set in memory).
 *
 *   npx tsx bench/results-export.bench.ts [--size 100000] [--skip-pg] [--skip-pglite]
 *
 * The console runs in a child process (startServer, as `npm start` runs it, with PGlite in its
 * data directory or PostgreSQL), which samples its own RSS every 20 ms; this process only
 * downloads and counts lines, so the figure is the server's alone. With PGlite the database
 * lives in the server process, so its memory is counted too.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ask, exited, forkBench, nextMessage } from './lib/child';
import { scratchPostgres, type ScratchPostgres } from './lib/database';

const { values: args } = parseArgs({
  options: {
    size: { type: 'string', default: '100000' },
    'skip-pg': { type: 'boolean', default: false },
    'skip-pglite': { type: 'boolean', default: false },
    child: { type: 'string' },
  },
});
const SIZE = Number(args.size);
const TARGET_MB = 200;
const MB = 1024 * 1024;

type ToChild = { type: 'measure' } | { type: 'report' } | { type: 'stop' };
interface ChildOptions {
  mode: 'seed' | 'serve';
  dataDir: string;
  databaseUrl?: string;
}
const CREDENTIALS = { email: 'bench@example.com', password: 'secreto123' };
const serverEnv = (opts: ChildOptions) => ({
  APP_SECRET: 'bench-secret-bench-secret-bench',
  DATA_DIR: opts.dataDir,
  LOG_LEVEL: 'silent',
  PORT: '0',
  ...(opts.databaseUrl ? { DATABASE_URL: opts.databaseUrl } : {}),
});

type FromChild =
  | { type: 'seeded'; campaignId: number; seedSeconds: number }
  | { type: 'ready'; url: string }
  | { type: 'measuring' }
  | { type: 'report'; peakMb: number; beforeMb: number };

if (args.child) {
  const opts = JSON.parse(args.child) as ChildOptions;
  await (opts.mode === 'seed' ? seed(opts) : serve(opts));
} else await main();

/** The seed: a campaign with SIZE recipients, written by a process of its own and closed. */
async function seed(opts: ChildOptions) {
  const { sql } = await import('drizzle-orm');
  const { loadConfig } = await import('../server/src/config');
  const { createContext } = await import('../server/src/context');
  const { buildApp } = await import('../server/src/app');
  const { openDatabase } = await import('../server/src/db/client');
  const { migrate } = await import('../server/src/db/migrate');
  const { rowsOf } = await import('../server/src/db/sql');
  const started = performance.now();
  const database = await openDatabase({ url: opts.databaseUrl, dataDir: opts.databaseUrl ? undefined : opts.dataDir });
  await migrate(database);
  const app = await buildApp(createContext(loadConfig(serverEnv(opts)), database));
  await app.ready();
  const reg = await app.inject({ method: 'POST', url: '/api/auth/register', payload: { first_name: 'Ana', last_name: 'Bench', ...CREDENTIALS } });
  const userId = (reg.json() as { user: { id: number } }).user.id;
  const { db } = database;
  const [{ id: accountId }] = await rowsOf<{ id: number }>(db, sql`insert into kommo_accounts (user_id, subdomain, access_token_enc, phone_field_id, country)
    values (${userId}, 'bench', 'x', 1, 'AR') returning id`);
  const [{ id: whatsappAccountId }] = await rowsOf<{ id: number }>(db, sql`insert into whatsapp_accounts (user_id, name, phone_number, phone_number_id, access_token_enc, business_account_id, is_active)
    values (${userId}, 'Bench', '+5491100000000', 'bench-pn', 'x', 'bench-waba', false) returning id`);
  const [{ id: templateId }] = await rowsOf<{ id: number }>(db, sql`insert into templates (user_id, whatsapp_account_id, name, language, category, status, components)
    values (${userId}, ${whatsappAccountId}, 'promo', 'es', 'MARKETING', 'approved', '[{"type":"BODY","text":"Hola, tenemos una oferta."}]'::jsonb) returning id`);
  await db.execute(sql`insert into contacts (user_id, account_id, kommo_id, name, first_name, phone, phone_raw, tags)
    select ${userId}, ${accountId}, i, 'Cliente ' || i, 'Nombre' || i, '+54911' || lpad(i::text, 8, '0'), '11 ' || lpad(i::text, 8, '0'), array['general']
    from generate_series(1, ${SIZE}::int) as i`);
  const [{ id: campaignId }] = await rowsOf<{ id: number }>(db, sql`insert into campaigns (user_id, name, status, kommo_account_id, whatsapp_account_id, template_id,
      total_recipients, audience_frozen_at, started_at, completed_at)
    values (${userId}, 'Promo bench', 'completed', ${accountId}, ${whatsappAccountId}, ${templateId}, ${SIZE}, now(), now(), now()) returning id`);
  // What a finished campaign looks like: most read, some delivered, failed, replied, tapped, priced.
  await db.execute(sql`insert into campaign_recipients (campaign_id, user_id, contact_id, phone, phone_key, status, wamid, sent_at, delivered_at, read_at,
      failed_at, error_code, error_message, replied_at, reply_count, last_reply, button_tapped, pricing_category, pricing_type, pricing_model, country)
    select ${campaignId}, ${userId}, c.id, c.phone, c.phone_key,
      case when c.kommo_id % 20 = 0 then 'failed' when c.kommo_id % 4 = 0 then 'delivered' else 'read' end,
      'wamid.bench.' || c.kommo_id,
      case when c.kommo_id % 20 <> 0 then now() - interval '2 hours' end,
      case when c.kommo_id % 20 <> 0 then now() - interval '2 hours' end,
      case when c.kommo_id % 20 <> 0 and c.kommo_id % 4 <> 0 then now() - interval '1 hour' end,
      case when c.kommo_id % 20 = 0 then now() end,
      case when c.kommo_id % 20 = 0 then 131000 end,
      case when c.kommo_id % 20 = 0 then 'Algo salió mal, inténtalo más tarde' end,
      case when c.kommo_id % 5 = 1 then now() - interval '30 minutes' end,
      case when c.kommo_id % 5 = 1 then 1 + c.kommo_id % 3 else 0 end,
      case when c.kommo_id % 5 = 1 then 'Gracias, me interesa la oferta, ¿hasta cuándo vale?' end,
      case when c.kommo_id % 10 = 1 then 'Sí, me interesa' end,
      case when c.kommo_id % 20 <> 0 then 'marketing' end,
      case when c.kommo_id % 20 <> 0 then 'regular' end,
      case when c.kommo_id % 20 <> 0 then 'PMP' end,
      'AR'
    from contacts c where c.account_id = ${accountId} order by c.id`);
  await db.execute(sql`analyze contacts, campaign_recipients`);
  await app.close();
  await database.close();
  process.send!({ type: 'seeded', campaignId, seedSeconds: (performance.now() - started) / 1000 } satisfies FromChild);
}

/** The server, started like `npm start` on the seeded data; it samples its own RSS when asked. */
async function serve(opts: ChildOptions) {
  const { loadConfig } = await import('../server/src/config');
  const { startServer } = await import('../server/src/server');
  const server = await startServer(loadConfig(serverEnv(opts)));
  let peak = 0;
  let before = 0;
  let sampler: NodeJS.Timeout | undefined;
  process.on('message', (m: ToChild) => {
    if (m.type === 'measure') {
      global.gc?.();
      before = process.memoryUsage().rss;
      peak = before;
      sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
      process.send!({ type: 'measuring' } satisfies FromChild);
    } else if (m.type === 'report') {
      clearInterval(sampler);
      peak = Math.max(peak, process.memoryUsage().rss);
      process.send!({ type: 'report', peakMb: peak / MB, beforeMb: before / MB } satisfies FromChild);
    } else if (m.type === 'stop') {
      void server.stop().then(() => process.exit(0));
    }
  });
  process.send!({ type: 'ready', url: server.url! } satisfies FromChild);
}

/** Downloads the CSV as a stream, counting lines; nothing of it is kept. */
async function download(url: string, token: string, campaignId: number) {
  const started = performance.now();
  const res = await fetch(`${url}/api/campaigns/${campaignId}/results.csv`, { headers: { authorization: `Bearer ${token}` } });
  if (!res.ok || !res.body) throw new Error(`export answered ${res.status}: ${await res.text()}`);
  const firstByte = performance.now() - started;
  let lines = 0;
  let bytes = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    for (let i = 0; i < chunk.length; i++) if (chunk[i] === 10) lines++;
  }
  return { rows: lines - 1, bytes, seconds: (performance.now() - started) / 1000, firstByteMs: firstByte };
}

async function run(engine: 'PostgreSQL' | 'PGlite') {
  // The children open the database (the seed migrates it); this process only creates and drops it.
  const dataDir = mkdtempSync(join(tmpdir(), 'masivo-bench-results-'));
  const scratch: ScratchPostgres | undefined = engine === 'PostgreSQL' ? await scratchPostgres('masivo_bench_results') : undefined;
  const databaseUrl = scratch?.url;
  const start = (mode: ChildOptions['mode']) =>
    forkBench(import.meta.filename, ['--child', JSON.stringify({ mode, dataDir, databaseUrl } satisfies ChildOptions), '--size', String(SIZE)], {
      execArgv: ['--expose-gc'],
    });
  const first = <T extends FromChild['type']>(proc: ChildProcess, type: T) =>
    nextMessage<FromChild>(proc, (m) => m.type === type, type === 'seeded' ? 'seed' : 'server') as Promise<Extract<FromChild, { type: T }>>;
  let server: ChildProcess | undefined;
  try {
    const seeder = start('seed');
    const seeded = await first(seeder, 'seeded');
    await exited(seeder);
    server = start('serve');
    const { url } = await first(server, 'ready');
    const login = await fetch(`${url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(CREDENTIALS) });
    const { token } = (await login.json()) as { token: string };
    await ask<FromChild>(server, { type: 'measure' } satisfies ToChild);
    const result = await download(url, token, seeded.campaignId);
    const report = (await ask<FromChild>(server, { type: 'report' } satisfies ToChild)) as Extract<FromChild, { type: 'report' }>;
    return { engine, seeded, result, report };
  } finally {
    if (server && server.exitCode === null) {
      server.send({ type: 'stop' } satisfies ToChild);
      await exited(server);
    }
    await scratch?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  const engines = [...(args['skip-pg'] ? [] : (['PostgreSQL'] as const)), ...(args['skip-pglite'] ? [] : (['PGlite'] as const))];
  const rows = [];
  let ok = true;
  for (const engine of engines) {
    const { seeded, result, report } = await run(engine);
    const growth = report.peakMb - report.beforeMb;
    const peakMet = report.peakMb < TARGET_MB;
    const growthMet = growth < TARGET_MB;
    // With PGlite the database itself lives in the server process (its buffers and WebAssembly
    // heap, several hundred MB before any export), so there the export is judged by what it adds.
    ok &&= (engine === 'PGlite' ? growthMet : peakMet) && result.rows === SIZE;
    rows.push({
      database: engine,
      rows: result.rows,
      'CSV MB': +(result.bytes / MB).toFixed(1),
      seconds: +result.seconds.toFixed(2),
      'rows/s': Math.round(result.rows / result.seconds),
      'first byte ms': Math.round(result.firstByteMs),
      'idle server RSS MB': Math.round(report.beforeMb),
      'peak RSS MB (target < 200)': `${Math.round(report.peakMb)} ${engine === 'PGlite' ? '(database in process)' : peakMet ? 'ok' : 'MISS'}`,
      'growth while streaming MB (< 200)': `+${Math.round(growth)} ${growthMet ? 'ok' : 'MISS'}`,
      'seed s': +seeded.seedSeconds.toFixed(1),
    });
  }
  console.table(rows);
  console.log(
    `target: the server's resident memory under ${TARGET_MB} MB while it streams ${SIZE.toLocaleString('en')} rows (PGlite: what the export adds) → ${ok ? 'met' : 'NOT met'}`,
  );
  console.log('(idle server RSS: the process before the download, after a GC: Node, the modules loaded through tsx and, with PGlite, the embedded database)');
  if (!ok) process.exitCode = 1;
}
