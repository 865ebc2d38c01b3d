/**
 * Explicit recipients (0039): 100,000 recipients added to a draft in batches of 1,000, each with
 * its own parameters, through the service (`addExplicitRecipients`) and through an HTTP route
 * injected into a bare Fastify instance (JSON parsing of the batch included); then the first
 * start freezes them through the audience classifier. Target: ≥ 5,000 recipients/s added on
 * PostgreSQL.
 *
 *   npx tsx bench/explicit-recipients.bench.ts [--size 100000] [--batch 1000] [--skip-pg] [--skip-pglite] [--pglite-size 20000]
 *
 * PostgreSQL via BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres).
 */
import { parseArgs } from 'node:util';
import Fastify from 'fastify';
import { sql } from 'drizzle-orm';
import type { ExplicitRecipientInput } from '../contract/src/explicit-recipients';
import { loadConfig } from '../server/src/config';
import { createContext, type AppContext } from '../server/src/context';
import { rowsOf } from '../server/src/db/sql';
import { addExplicitRecipients, createExplicitCampaign } from '../server/src/services/campaigns/explicit-recipients';
import { startCampaign } from '../server/src/services/campaigns/start-campaign';
import { seedCampaignWorld } from '../server/test/helpers/campaign-fixtures';
import { openBenchDatabase } from './lib/database';
import { fmt, printTable } from './lib/stats';

const { values: args } = parseArgs({
  options: {
    size: { type: 'string', default: '100000' },
    'pglite-size': { type: 'string', default: '20000' },
    batch: { type: 'string', default: '1000' },
    'skip-pg': { type: 'boolean', default: false },
    'skip-pglite': { type: 'boolean', default: false },
  },
});
const BATCH = Number(args.batch);
const TARGET = 5000;

/** Recipient i: a distinct Argentine mobile (every 50th a BSUID), with its own body values. */
function batchOf(from: number, n: number): ExplicitRecipientInput[] {
  return Array.from({ length: n }, (_, k) => {
    const i = from + k;
    const params = { variable_1: `Cliente ${i}`, variable_2: `Ciudad ${i % 97}` };
    return i % 50 === 0 ? { bsuid: `AR.${String(10_000_000_000 + i)}`, params } : { phone: `+54911${String(20_000_000 + i)}`, params };
  });
}

async function run(kind: 'postgres' | 'pglite', size: number): Promise<string[][]> {
  const bench = await openBenchDatabase(kind, 'bench_explicit', { poolSize: 4 });
  try {
    const config = loadConfig({ APP_SECRET: 'bench-app-secret-bench-app-secret', DATA_DIR: bench.dataDir, LOG_LEVEL: 'silent' });
    const ctx = createContext(config, bench.database);
    const [user] = await rowsOf<{ id: number }>(ctx.db, sql`insert into users (email, password_hash) values ('bench@example.com', 'x') returning id`);
    const userId = Number(user!.id);
    const world = await seedCampaignWorld(ctx.db, ctx.secrets, userId, { number: { phoneNumberId: '990001', wabaId: '880001', token: 'tok', ratePerSecond: 80 } });
    const draft = (name: string) => createExplicitCampaign(ctx, userId, { name, whatsapp_account_id: world.whatsappAccountId, template_id: world.templateId });
    const rows: string[][] = [];

    // Through the service, as the public API's handler will call it.
    const direct = await draft('Directa');
    const viaService = await timeBatches(size, (from, n) => addExplicitRecipients(ctx, userId, direct.id, batchOf(from, n)));
    rows.push(row(kind, 'service', size, viaService));

    // Through an HTTP route (the request's JSON parsed by Fastify, then the same service).
    const viaHttp = await timeHttp(ctx, userId, (await draft('Por HTTP')).id, size);
    rows.push(row(kind, 'HTTP route (inject)', size, viaHttp));

    // The first start: the staged rows frozen through the audience classifier.
    const started = performance.now();
    await startCampaign(ctx, userId, direct.id);
    const freezeMs = performance.now() - started;
    const [frozen] = await rowsOf<{ n: number }>(ctx.db, sql`select count(*)::int as n from campaign_recipients where campaign_id = ${direct.id}`);
    rows.push([kind, 'start (freeze)', fmt(Number(frozen!.n)), (freezeMs / 1000).toFixed(2), fmt((Number(frozen!.n) / freezeMs) * 1000), '—']);
    return rows;
  } finally {
    await bench.close();
  }
}

async function timeBatches(size: number, add: (from: number, n: number) => Promise<{ total: number }>): Promise<number> {
  const started = performance.now();
  let total = 0;
  for (let from = 0; from < size; from += BATCH) total = (await add(from, Math.min(BATCH, size - from))).total;
  if (total !== size) throw new Error(`expected ${size} recipients, the campaign holds ${total}`);
  return performance.now() - started;
}

async function timeHttp(ctx: AppContext, userId: number, campaignId: number, size: number): Promise<number> {
  const app = Fastify({ bodyLimit: 10 * 1024 * 1024 });
  app.post<{ Params: { id: string }; Body: { recipients: ExplicitRecipientInput[] } }>('/campaigns/:id/recipients', async (req) =>
    addExplicitRecipients(ctx, userId, Number(req.params.id), req.body.recipients),
  );
  await app.ready();
  try {
    return await timeBatches(size, async (from, n) => {
      const res = await app.inject({ method: 'POST', url: `/campaigns/${campaignId}/recipients`, payload: { recipients: batchOf(from, n) } });
      if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}: ${res.body}`);
      return res.json() as { total: number };
    });
  } finally {
    await app.close();
  }
}

function row(kind: string, path: string, size: number, ms: number): string[] {
  const perSecond = (size / ms) * 1000;
  const target = kind === 'postgres' ? `${fmt(TARGET)} ${perSecond >= TARGET ? 'met' : 'NOT met'}` : 'none';
  return [kind, path, fmt(size), (ms / 1000).toFixed(2), fmt(perSecond), target];
}

const table: string[][] = [];
if (!args['skip-pg']) table.push(...(await run('postgres', Number(args.size))));
if (!args['skip-pglite']) table.push(...(await run('pglite', Number(args['pglite-size']))));
printTable(table, ['database', 'path', 'recipients', 'seconds', 'recipients/s', `target (≥ ${fmt(TARGET)}/s, PostgreSQL)`]);
