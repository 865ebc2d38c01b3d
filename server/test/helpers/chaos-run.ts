import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { loadConfig } from '../../src/config';
import { createContext } from '../../src/context';
import { openDatabase } from '../../src/db/client';
import { migrate } from '../../src/db/migrate';
import { getCampaign } from '../../src/services/campaigns/campaign-queries';
import { createCampaign } from '../../src/services/campaigns/create-campaign';
import { startCampaign } from '../../src/services/campaigns/start-campaign';
import { rowsOf } from '../../src/db/sql';
import { seedCampaignWorld } from './campaign-fixtures';

const here = dirname(fileURLToPath(import.meta.url));
const tsxLoader = createRequire(import.meta.url).resolve('tsx');
const APP_SECRET = 'chaos-app-secret-chaos-app-secret';
export const CHAOS_WEBHOOK_SECRET = 'chaos-webhook-secret';

/** What the chaos run needs from the simulator, in-process or in its own process. */
export interface ChaosSim {
  graphUrl: string;
  setWebhookUrl(url: string): Promise<void>;
  addNumber(n: { phoneNumberId: string; wabaId: string; token: string }): Promise<void>;
  /** Accepted sends per recipient digits. */
  counts(): Promise<Record<string, number>>;
  duplicates(): Promise<unknown[]>;
}

export interface ChaosOptions {
  /** postgres://… of a server where a scratch database may be created. */
  adminUrl: string;
  sim: ChaosSim;
  recipients: number;
  kills: number;
  ratePerSecond: number;
  /** Random pause before each kill, ms. */
  killAfterMs: [number, number];
  log?: (line: string) => void;
}

export interface ChaosResult {
  recipients: number;
  kills: number;
  inFlightAtKills: number[];
  accepted: number;
  duplicates: number;
  unknown: number;
  unsettled: number;
  status: string;
  counters: Record<string, number>;
  seconds: number;
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

/**
 * A campaign sent by a server that is killed with SIGKILL at random moments and restarted,
 * against a scratch PostgreSQL database. Reports what the engine's promises (never twice, nothing lost) need:
 * duplicates seen by the simulator, recipients left unsettled, unknown vs. rows in flight.
 */
export async function runChaos(o: ChaosOptions): Promise<ChaosResult> {
  const log = o.log ?? (() => undefined);
  const dbName = `chaos_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: o.adminUrl });
  await admin.connect();
  await admin.query(`create database ${dbName}`);
  const url = new URL(o.adminUrl);
  url.pathname = `/${dbName}`;
  const dbUrl = url.toString();
  const database = await openDatabase({ url: dbUrl, poolSize: 4 });
  let child: ChildProcess | null = null;
  const started = Date.now();
  try {
    await database.db.execute(sql`create extension if not exists pg_trgm`);
    await migrate(database);
    const port = await freePort();
    const env = {
      ...process.env,
      DATABASE_URL: dbUrl,
      PORT: String(port),
      APP_SECRET,
      WHATSAPP_GRAPH_URL: o.sim.graphUrl,
      WHATSAPP_APP_SECRET: CHAOS_WEBHOOK_SECRET,
      LOG_LEVEL: 'silent',
      DATA_DIR: '/tmp/masivo-chaos',
      CAMPAIGN_ENGINE_OPTIONS: JSON.stringify({
        tickMs: 200,
        graceMs: 4_000,
        responseTimeoutMs: 1_500,
        leaseTtlMs: 2_500,
        leaseRenewMs: 500,
        leaseScanMs: 100,
        flushMs: 100,
        refreshMs: 200,
        inboxPollMs: 50,
      }),
    };
    const ctx = createContext(loadConfig(env), database);
    const [user] = await rowsOf<{ id: number }>(
      database.db,
      sql`insert into users (email, password_hash) values ('chaos@example.com', 'x') returning id`,
    );
    const userId = Number(user.id);
    const number = { phoneNumberId: '7001', wabaId: '8001', token: 'chaos-token' };
    await o.sim.addNumber(number);
    await o.sim.setWebhookUrl(`http://127.0.0.1:${port}/api/webhooks/whatsapp`);
    const world = await seedCampaignWorld(database.db, ctx.secrets, userId, {
      number: { ...number, ratePerSecond: o.ratePerSecond },
      contacts: o.recipients,
    });
    const created = await createCampaign(ctx, userId, {
      name: 'Caos',
      kommo_account_id: world.kommoAccountId,
      whatsapp_account_id: world.whatsappAccountId,
      template_id: world.templateId,
    });
    await startCampaign(ctx, userId, created.id);

    const spawnChild = async () => {
      const c = spawn(process.execPath, ['--import', tsxLoader, join(here, 'engine-child.ts')], { env, stdio: ['ignore', 'pipe', 'inherit'] });
      child = c;
      await new Promise<void>((resolve, reject) => {
        let out = '';
        c.stdout!.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes('READY')) resolve();
        });
        c.once('exit', (code) => reject(new Error(`server exited early (${code})`)));
      });
      return c;
    };
    // Rows the killed process had claimed (intent committed) and not settled.
    const inFlightSince = (since: string) =>
      rowsOf<{ n: number }>(
        database.db,
        sql`select count(*)::int as n from campaign_recipients
            where campaign_id = ${created.id} and status = 'sending' and claimed_at >= ${since}::timestamptz`,
      ).then(([r]) => Number(r.n));
    const dbNow = () => rowsOf<{ now: string }>(database.db, sql`select now()::text as now`).then(([r]) => r.now);

    const inFlightAtKills: number[] = [];
    for (let k = 0; k < o.kills; k++) {
      const spawnedAt = await dbNow();
      const c = await spawnChild();
      const wait = o.killAfterMs[0] + Math.random() * (o.killAfterMs[1] - o.killAfterMs[0]);
      await new Promise((r) => setTimeout(r, wait));
      const exited = new Promise((r) => c.once('exit', r));
      c.kill('SIGKILL');
      await exited;
      child = null;
      // Committed state once the process is gone: the rows it left in flight.
      inFlightAtKills.push(await inFlightSince(spawnedAt));
      const progress = await getCampaign(database.db, userId, created.id);
      log(`kill ${k + 1}: in flight ${inFlightAtKills.at(-1)}, sent ${progress.messages_sent}/${progress.total_recipients}`);
      if (progress.status === 'completed') break;
    }
    const last = await spawnChild();
    const deadline = Date.now() + 10 * 60_000;
    let campaign = await getCampaign(database.db, userId, created.id);
    while (campaign.status !== 'completed' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      campaign = await getCampaign(database.db, userId, created.id);
    }
    // Let the last statuses arrive, then stop the server normally.
    await new Promise((r) => setTimeout(r, 1_000));
    const exited = new Promise((r) => last.once('exit', r));
    last.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    child = null;

    campaign = await getCampaign(database.db, userId, created.id);
    const counts = await o.sim.counts();
    const [unsettled] = await rowsOf<{ n: number }>(
      database.db,
      sql`select count(*)::int as n from campaign_recipients where campaign_id = ${created.id} and status in ('pending', 'sending')`,
    );
    return {
      recipients: o.recipients,
      kills: inFlightAtKills.length,
      inFlightAtKills,
      accepted: Object.values(counts).reduce((a, b) => a + b, 0),
      duplicates: (await o.sim.duplicates()).length,
      unknown: campaign.unknown_count,
      unsettled: Number(unsettled.n),
      status: campaign.status,
      counters: {
        total: campaign.total_recipients,
        sent: campaign.messages_sent,
        delivered: campaign.delivered_count,
        read: campaign.read_count,
        failed: campaign.failed_count,
        unknown: campaign.unknown_count,
        pending: campaign.pending_count,
      },
      seconds: (Date.now() - started) / 1000,
    };
  } finally {
    const c = child as ChildProcess | null;
    if (c && c.exitCode === null) c.kill('SIGKILL');
    await database.close();
    await admin.query(`drop database if exists ${dbName} with (force)`);
    await admin.end();
  }
}
