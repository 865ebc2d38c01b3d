import { sql } from 'drizzle-orm';
import { startKommoSim, type KommoSim } from '@masivo/simulators/kommo';
import { rowsOf } from '../../src/db/sql';
import { createKommoClient } from '../../src/integrations/kommo/client';
import { startKommoSyncRunner } from '../../src/engine/kommo-sync/sync-runner';
import type { BackgroundWork } from '../../src/engine/background-work';
import { createTestApp, type TestApp } from './app';

/** A test app pointed at a fresh Kommo simulator, with a fast-failing client for the runner. */
export interface KommoTestEnv {
  t: TestApp;
  sim: KommoSim;
  runner: BackgroundWork | null;
  startRunner(opts?: { leaseMs?: number }): BackgroundWork;
  close(): Promise<void>;
}

export async function createKommoTestEnv(opts: { rps?: number; contacts?: number } = {}): Promise<KommoTestEnv> {
  const sim = await startKommoSim({ rps: opts.rps ?? 50, accounts: [] });
  const t = await createTestApp({ KOMMO_BASE_URL: sim.baseUrlTemplate, KOMMO_RPS: String(opts.rps ?? 50) });
  const env: KommoTestEnv = {
    t,
    sim,
    runner: null,
    startRunner(o = {}) {
      const client = createKommoClient({
        baseUrlTemplate: sim.baseUrlTemplate,
        rps: opts.rps ?? 50,
        timeoutMs: 1500,
        retries: 3,
        backoffMs: 20,
      });
      env.runner = startKommoSyncRunner(t.ctx, { client, pollMs: 50, leaseMs: o.leaseMs ?? 5000 });
      return env.runner;
    },
    async close() {
      await env.runner?.stop();
      await t.close();
      await sim.close();
    },
  };
  return env;
}

/** Polls the sync-status route until the sync leaves 'syncing'. */
export async function waitForSync(t: TestApp, headers: Record<string, string>, accountId: number, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await t.app.inject({ method: 'GET', url: `/api/kommo/accounts/${accountId}/sync-status`, headers });
    const body = res.json();
    if (body.sync_status !== 'syncing') return body;
    if (Date.now() > deadline) throw new Error(`sync still running: ${JSON.stringify(body)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Connecting a Kommo account also subscribes to its webhooks in the background: waits until that
 * request was answered (the account's `hook_status` is set), so what a test changes or injects
 * next is not overwritten by its late answer.
 */
export async function waitForHookCheck(t: TestApp, accountId: number, timeoutMs = 5_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const [row] = await rowsOf<{ hook_status: string | null }>(t.ctx.db, sql`select hook_status from kommo_accounts where id = ${accountId}`);
    if (row?.hook_status) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}
