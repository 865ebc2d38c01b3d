/**
 * A campaign sending stack for benches: a scratch database (PostgreSQL or PGlite), the console
 * listening for webhooks, the campaign engine, and the WhatsApp simulator in its own process;
 * numbers with their audiences, campaigns started and waited for.
 */
import { sql } from 'drizzle-orm';
import { buildApp } from '../../server/src/app';
import { loadConfig } from '../../server/src/config';
import { createContext, type AppContext } from '../../server/src/context';
import type { Database } from '../../server/src/db/client';
import { jsonParam, rowsOf } from '../../server/src/db/sql';
import { startCampaignEngine, type CampaignEngine } from '../../server/src/engine/campaigns/index';
import { campaignRollups } from '../../server/src/engine/campaign-rollups';
import { JobRunner } from '../../server/src/jobs/index';
import { getCampaign } from '../../server/src/services/campaigns/campaign-queries';
import { createCampaign } from '../../server/src/services/campaigns/create-campaign';
import { startCampaign } from '../../server/src/services/campaigns/start-campaign';
import { insertTemplate, insertWhatsAppAccount, seedCampaignWorld, simPromoTemplate, type CampaignWorld } from '../../server/test/helpers/campaign-fixtures';
import { startWhatsAppSimProcess, type RemoteWhatsAppSim } from '../../server/test/helpers/whatsapp-sim-process';
import { raisePriority, SIM_PRIORITY } from './child';
import { openBenchDatabase } from './database';

const WEBHOOK_SECRET = 'bench-webhook-secret';

export interface Stack {
  ctx: AppContext;
  database: Database;
  engine: CampaignEngine;
  sim: RemoteWhatsAppSim;
  userId: number;
  close(): Promise<void>;
  /** With `rollups`: each pass of the rollup job, in ms. */
  rollupPasses: number[];
  /** The simulator's nice value: SIM_PRIORITY when it could be raised, else 0 like the console. */
  simPriority: number;
}

/**
 * A scratch database (PostgreSQL or PGlite), the server listening for webhooks, the engine and the
 * simulator; with `rollups`, also the job runner folding the charts' rollups every 5 s, as a worker runs it.
 */
export async function startStack(kind: 'postgres' | 'pglite', opts: { rollups?: boolean } = {}): Promise<Stack> {
  const sim = await startWhatsAppSimProcess({
    appSecret: WEBHOOK_SECRET,
    deliveryRate: 1,
    readRate: 0.5,
    statusDelayMs: 50,
    webhookBatchMax: 200,
  });
  const simPriority = raisePriority([sim.pid], SIM_PRIORITY) ? SIM_PRIORITY : 0;
  const bench = await openBenchDatabase(kind, 'bench_campaigns', { poolSize: 12, onDisk: true });
  const { database } = bench;
  const config = loadConfig({
    APP_SECRET: 'bench-app-secret-bench-app-secret',
    DATA_DIR: '/tmp/masivo-bench',
    LOG_LEVEL: 'silent',
    WHATSAPP_GRAPH_URL: sim.graphUrl,
    WHATSAPP_APP_SECRET: WEBHOOK_SECRET,
  });
  const ctx = createContext(config, database);
  const app = await buildApp(ctx);
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  await sim.control('POST', '/configure', { webhookUrl: `${address}/api/webhooks/whatsapp` });
  const [user] = await rowsOf<{ id: number }>(
    database.db,
    sql`insert into users (email, password_hash) values ('bench@example.com', 'x') returning id`,
  );
  const engine = startCampaignEngine(ctx, { leaseScanMs: 50 });
  const rollupJob = campaignRollups(ctx);
  const rollupPasses: number[] = [];
  const timedJob = { ...rollupJob, run: async (signal: AbortSignal) => { const t = performance.now(); await rollupJob.run(signal); rollupPasses.push(performance.now() - t); } };
  const runner = opts.rollups ? new JobRunner({ db: database.db, log: ctx.log, owner: 'bench' }).periodic(timedJob) : undefined;
  await runner?.start();
  return {
    ctx,
    database,
    engine,
    sim,
    userId: Number(user.id),
    rollupPasses,
    simPriority,
    async close() {
      await runner?.stop();
      await engine.stop();
      await app.close();
      await sim.close();
      await bench.close();
    },
  };
}

let numberSeq = 0;
export async function addNumber(stack: Stack, rate: number, contacts: number): Promise<{ world: CampaignWorld; phoneNumberId: string }> {
  const phoneNumberId = String(900_000 + ++numberSeq);
  const wabaId = String(800_000 + numberSeq);
  await stack.sim.control('POST', '/numbers', {
    phoneNumberId,
    wabaId,
    token: `tok-${phoneNumberId}`,
    displayPhoneNumber: '5491100000000',
    // Far above our rate: the simulator must not hide a pacing fault.
    throughput: 100_000,
  });
  await stack.sim.control('POST', '/templates', simPromoTemplate(wabaId));
  const world = await seedCampaignWorld(stack.database.db, stack.ctx.secrets, stack.userId, {
    number: { phoneNumberId, wabaId, token: `tok-${phoneNumberId}`, ratePerSecond: rate },
    contacts,
    subdomain: `bench${numberSeq}`,
  });
  return { world, phoneNumberId };
}

/**
 * `count` numbers of ONE WhatsApp Business Account (so one portfolio), each at `rate` msg/s and
 * with the simulator enforcing exactly that throughput (130429 above it), each holding the
 * approved `promo`; the audience (`contacts`) on the first number's Kommo account.
 */
export async function addPortfolioNumbers(
  stack: Stack,
  count: number,
  rate: number,
  contacts: number,
): Promise<{ world: CampaignWorld; accountIds: number[]; phoneNumberIds: string[] }> {
  const wabaId = String(800_000 + ++numberSeq);
  const phoneNumberIds: string[] = [];
  for (let i = 0; i < count; i++) {
    const phoneNumberId = String(900_000 + ++numberSeq);
    phoneNumberIds.push(phoneNumberId);
    await stack.sim.control('POST', '/numbers', { phoneNumberId, wabaId, token: `tok-${wabaId}`, displayPhoneNumber: `54911000000${i}`, throughput: rate });
  }
  await stack.sim.control('POST', '/templates', simPromoTemplate(wabaId));
  const world = await seedCampaignWorld(stack.database.db, stack.ctx.secrets, stack.userId, {
    number: { phoneNumberId: phoneNumberIds[0], wabaId, token: `tok-${wabaId}`, ratePerSecond: rate },
    contacts,
    subdomain: `bench${numberSeq}`,
  });
  const accountIds = [world.whatsappAccountId];
  for (const phoneNumberId of phoneNumberIds.slice(1)) {
    const id = await insertWhatsAppAccount(stack.database.db, stack.ctx.secrets, stack.userId, { phoneNumberId, wabaId, token: `tok-${wabaId}`, ratePerSecond: rate });
    await insertTemplate(stack.database.db, stack.userId, id);
    accountIds.push(id);
  }
  return { world, accountIds, phoneNumberIds };
}

/** Creates a campaign of the world's number and starts it (its audience frozen), timing the start alone. */
export async function startTimed(stack: Stack, world: CampaignWorld, name = `Bench ${world.whatsappAccountId}`, numbers?: number[]) {
  const c = await createCampaign(stack.ctx, stack.userId, {
    name,
    kommo_account_id: world.kommoAccountId,
    whatsapp_account_id: world.whatsappAccountId,
    whatsapp_account_ids: numbers,
    template_id: world.templateId,
  });
  const t = performance.now();
  const started = await startCampaign(stack.ctx, stack.userId, c.id);
  return { started, seconds: (performance.now() - t) / 1000 };
}

export async function launch(stack: Stack, world: CampaignWorld) {
  return (await startTimed(stack, world)).started;
}

export async function waitCompleted(stack: Stack, ids: number[], timeoutMs = 600_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // Only the status, as an operator's list would poll it: the campaign screen's full stats are
    // the dashboard bench's subject, and ten of them a second would weigh on the sender measured here.
    const statuses = await rowsOf<{ status: string }>(
      stack.database.db,
      sql`select status from campaigns where id = any(array(select (jsonb_array_elements_text(${jsonParam(ids)}))::int))`,
    );
    if (statuses.length === ids.length && statuses.every((c) => c.status === 'completed')) {
      return Promise.all(ids.map((id) => getCampaign(stack.database.db, stack.userId, id)));
    }
    if (Date.now() > deadline) throw new Error('campaigns did not complete in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Sends per second between the first and the last of `times` (epoch ms). */
export const rateOf = (times: number[]) => (times.length - 1) / ((times.at(-1)! - times[0]) / 1000);
