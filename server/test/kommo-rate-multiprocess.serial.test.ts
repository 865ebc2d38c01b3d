import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKommoSim, type KommoSim } from '@masivo/simulators/kommo';
import { createContext, type AppContext } from '../src/context';
import { rowsOf } from '../src/db/sql';
import { openTestDatabase, testConfig } from './helpers/app';
import { insertContacts, insertKommoAccount } from './helpers/campaign-fixtures';

/**
 * The shipped compose file runs several workers. Three worker processes on one PostgreSQL schema
 * write six tenants' campaigns back to one Kommo account while one of them syncs it, all at
 * once (a process holds two write-backs at most, so all three send): Kommo must see at most KOMMO_RPS requests in any 1-second
 * window, never answer 429, and the account's cap must be used.
 */
const url = process.env.TEST_DATABASE_URL;
const here = dirname(fileURLToPath(import.meta.url));
const tsxLoader = createRequire(import.meta.url).resolve('tsx');
const RPS = Number(process.env.TRIO_RPS ?? 7);
const SUBDOMAIN = 'trio';

let sim: KommoSim;
let ctx: AppContext;
let drop: () => Promise<void>;
let schema: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  if (!url) return;
  sim = await startKommoSim({ rps: RPS, accounts: [{ subdomain: SUBDOMAIN, token: 'kommo-token', contacts: 6000, seed: 7 }] });
  const opened = await openTestDatabase();
  drop = opened.drop;
  const { migrate } = await import('../src/db/migrate');
  await migrate(opened.database);
  [{ schema }] = await rowsOf<{ schema: string }>(opened.database.db, sql`select current_schema() as schema`);
  ctx = createContext(testConfig({ KOMMO_BASE_URL: sim.baseUrlTemplate, KOMMO_RPS: String(RPS) }), opened.database);
});

afterAll(async () => {
  await Promise.all(children.map((c) => stopChild(c)));
  await drop?.();
  await sim?.close();
});

function stopChild(c: ChildProcess): Promise<void> {
  if (c.exitCode !== null || c.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((r) => c.once('exit', () => r()));
  c.kill('SIGTERM');
  const forced = setTimeout(() => c.kill('SIGKILL'), 5_000);
  return exited.finally(() => clearTimeout(forced));
}

function startWorker(): Promise<ChildProcess> {
  const env = {
    ...process.env,
    DATABASE_URL: url,
    DB_SCHEMA: schema,
    APP_SECRET: ctx.config.APP_SECRET,
    DATA_DIR: '/tmp/masivo-test-data',
    LOG_LEVEL: 'silent',
    KOMMO_BASE_URL: sim.baseUrlTemplate,
    KOMMO_RPS: String(RPS),
    WRITEBACK_BATCH: '5',
  };
  const c = spawn(process.execPath, ['--import', tsxLoader, join(here, 'helpers/kommo-worker-child.ts')], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(c);
  return new Promise((resolve, reject) => {
    let out = '';
    c.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('READY')) resolve(c);
    });
    c.once('exit', (code) => reject(new Error(`worker exited early (${code})`)));
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!url)('one Kommo rate limit per account across worker processes (PostgreSQL)', () => {
  it('three workers syncing and writing back one account send at most 7 requests in any second, 0 × 429, and use the cap', async () => {
    const db = ctx.db;
    for (let i = 0; i < 6; i++) {
      const [{ id }] = await rowsOf<{ id: number }>(db, sql`insert into users (email, password_hash) values (${`trio${i}@example.com`}, 'x') returning id`);
      const userId = Number(id);
      const accountId = await insertKommoAccount(db, ctx.secrets, userId, SUBDOMAIN);
      // Each tenant's completed campaign is written back (notes for 200 people, tags for replies).
      await insertContacts(db, userId, accountId, 200);
      const [{ id: campaignId }] = await rowsOf<{ id: number }>(db, sql`
        insert into campaigns (user_id, name, status, kommo_account_id, filters, completed_at)
        values (${userId}, ${`Trío ${i}`}, 'completed', ${accountId}, '{}'::jsonb, now()) returning id`);
      await db.execute(sql`insert into campaign_recipients (campaign_id, user_id, contact_id, phone, phone_key, status, replied_at)
        select ${campaignId}, ${userId}, id, phone, phone_key, 'read', case when kommo_id % 3 = 0 then now() end from contacts where account_id = ${accountId}`);
    }
    await db.execute(sql`update kommo_accounts set phone_field_id = ${sim.fields(SUBDOMAIN).phoneFieldId},
      writeback_enabled = true, writeback_enabled_at = now() - interval '1 minute', writeback_reply_tag = 'Respondió'`);
    // And one tenant's full sync of the account runs meanwhile.
    await db.execute(sql`update kommo_accounts set sync_status = 'syncing' where user_id = (select min(user_id) from kommo_accounts)`);

    await Promise.all([startWorker(), startWorker(), startWorker()]);
    // Requests the simulator answered, sampled while every job runs.
    const samples: Array<{ at: number; requests: number }> = [];
    const deadline = performance.now() + 30_000;
    while (sim.stats().requests === 0 && performance.now() < deadline) await sleep(20);
    const busyFrom = performance.now();
    while (performance.now() - busyFrom < 9_000) {
      samples.push({ at: performance.now(), requests: sim.stats().requests });
      await sleep(100);
    }
    // Still busy at the end of the measure: every sync and the write-back have work left.
    const [state] = await rowsOf<{ syncing: number; owners: number; pending: number; done: number; writers: number }>(db, sql`
      select (select count(*)::int from kommo_accounts where sync_status = 'syncing') as syncing,
             (select count(distinct sync_lease_owner)::int from kommo_accounts where sync_status = 'syncing') as owners,
             (select count(*) filter (where stage not in ('done', 'failed'))::int from kommo_writeback_items) as pending,
             (select count(*) filter (where stage = 'done')::int from kommo_writeback_items) as done,
             (select count(distinct lease_owner)::int from kommo_writebacks where lease_owner is not null) as writers`);
    const stats = sim.stats();
    await Promise.all(children.map((c) => stopChild(c)));

    expect(state.syncing).toBe(1);
    expect(state.owners).toBe(1);
    expect(state.writers).toBe(3); // two write-backs in each process: all three sent
    expect(state.done).toBeGreaterThan(0);
    expect(state.pending).toBeGreaterThan(0);
    expect(stats.count429).toBe(0);
    expect(stats.count403).toBe(0);
    expect(stats.perSecondMax).toBeLessThanOrEqual(RPS);
    // Past the first second (processes starting, the first burst), the rate over the busy period.
    const from = samples.find((s) => s.at >= busyFrom + 1_000)!;
    const to = samples.at(-1)!;
    const rate = (to.requests - from.requests) / ((to.at - from.at) / 1000);
    console.log(`three workers: ${rate.toFixed(2)} requests/s over ${((to.at - from.at) / 1000).toFixed(1)} s, most in any 1 s: ${stats.perSecondMax}, 429s: ${stats.count429}`);
    expect(rate).toBeGreaterThanOrEqual(0.9 * RPS);
  }, 90_000);
});
