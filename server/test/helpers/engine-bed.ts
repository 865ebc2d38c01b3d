import { countersFromRows as rowCounters } from './campaign-fixtures';
import { sql } from 'drizzle-orm';
import { startWhatsAppSim, type WhatsAppSim, type WhatsAppSimOptions } from '@masivo/simulators/whatsapp';
import { startCampaignEngine, type CampaignEngine } from '../../src/engine/campaigns/index';
import type { CampaignEngineOptions } from '../../src/engine/campaigns/options';
import { getCampaign } from '../../src/services/campaigns/campaign-queries';
import { createCampaign } from '../../src/services/campaigns/create-campaign';
import { startCampaign } from '../../src/services/campaigns/start-campaign';
import { rowsOf } from '../../src/db/sql';
import type { Campaign } from '@masivo/contract/campaigns';
import type { ContactFilterInput } from '@masivo/contract/contact-filter';
import { createTestApp, type TestApp } from './app';
import { seedCampaignWorld, simPromoTemplate, type CampaignWorld } from './campaign-fixtures';
import { startWhatsAppSimProcess, type RemoteWhatsAppSim } from './whatsapp-sim-process';

export const APP_SECRET = 'test-whatsapp-app-secret';

export interface SimNumber {
  phoneNumberId: string;
  wabaId: string;
  token: string;
  rate: number;
}

export interface EngineBed<S = WhatsAppSim> {
  t: TestApp;
  sim: S;
  userId: number;
  /** The user's Authorization header, for API calls. */
  headers: { authorization: string };
  engine: CampaignEngine;
  worlds: CampaignWorld[];
  /** Creates a campaign on world i (filters optional) and starts it. */
  launch(i?: number, filters?: ContactFilterInput, name?: string): Promise<Campaign>;
  campaign(id: number): Promise<Campaign>;
  statuses(campaignId: number): Promise<Record<string, number>>;
  close(): Promise<void>;
}

/** Short timings so the engine's behaviour shows within a test's patience. */
export const FAST_ENGINE: Partial<CampaignEngineOptions> = {
  tickMs: 100,
  graceMs: 2_500,
  responseTimeoutMs: 800,
  connectTimeoutMs: 800,
  leaseTtlMs: 3_000,
  leaseRenewMs: 500,
  leaseScanMs: 100,
  flushMs: 50,
  refreshMs: 100,
  inboxPollMs: 50,
  idleReleaseMs: 1_000,
  // The simulator shares two busy cores with everything else: allow for its late timestamps.
  pacingJitterMs: 100,
};

/**
 * The server (listening on 127.0.0.1 so the simulator can post webhooks to it), the
 * WhatsApp simulator, a user with one "world" (Kommo account, number, template, contacts)
 * per number, and the campaign engine.
 */
export async function startEngineBed(opts: {
  numbers: SimNumber[];
  contacts: number;
  sim?: WhatsAppSimOptions;
  engine?: Partial<CampaignEngineOptions>;
}): Promise<EngineBed> {
  const sim = await startWhatsAppSim(simOptions(opts.numbers, opts.sim));
  return buildBed(sim, sim.graphUrl, (url) => sim.configure({ webhookUrl: url }), () => sim.close(), opts);
}

/** The same, with the simulator in its own process (for rate measurements). */
export async function startRemoteEngineBed(opts: {
  numbers: SimNumber[];
  contacts: number;
  sim?: WhatsAppSimOptions;
  engine?: Partial<CampaignEngineOptions>;
}): Promise<EngineBed<RemoteWhatsAppSim>> {
  const sim = await startWhatsAppSimProcess(simOptions(opts.numbers, opts.sim));
  return buildBed(sim, sim.graphUrl, (url) => sim.control('POST', '/configure', { webhookUrl: url }), () => sim.close(), opts);
}

function simOptions(numbers: SimNumber[], extra: WhatsAppSimOptions = {}): WhatsAppSimOptions {
  return {
    appSecret: APP_SECRET,
    numbers: numbers.map((n) => ({
      phoneNumberId: n.phoneNumberId,
      wabaId: n.wabaId,
      token: n.token,
      displayPhoneNumber: '5491100000000',
      // Far above the numbers' rates: the simulator must not hide a pacing fault.
      throughput: 10_000,
    })),
    templates: numbers.map((n) => simPromoTemplate(n.wabaId)),
    deliveryRate: 1,
    readRate: 1,
    statusDelayMs: 20,
    ...extra,
  };
}

async function buildBed<S>(
  sim: S,
  graphUrl: string,
  setWebhookUrl: (url: string) => unknown,
  closeSim: () => Promise<void>,
  opts: { numbers: SimNumber[]; contacts: number; engine?: Partial<CampaignEngineOptions> },
): Promise<EngineBed<S>> {
  const t = await createTestApp({ WHATSAPP_GRAPH_URL: graphUrl, WHATSAPP_APP_SECRET: APP_SECRET });
  const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
  await setWebhookUrl(`${address}/api/webhooks/whatsapp`);
  const { userId, headers } = await t.signUp();
  const worlds: CampaignWorld[] = [];
  for (const n of opts.numbers) {
    worlds.push(
      await seedCampaignWorld(t.ctx.db, t.ctx.secrets, userId, {
        number: { phoneNumberId: n.phoneNumberId, wabaId: n.wabaId, token: n.token, ratePerSecond: n.rate },
        contacts: opts.contacts,
      }),
    );
  }
  const engine = startCampaignEngine(t.ctx, { ...FAST_ENGINE, ...opts.engine });
  return {
    t,
    sim,
    userId,
    headers,
    engine,
    worlds,
    async launch(i = 0, filters = {}, name = 'Campaña de prueba') {
      const w = worlds[i];
      const c = await createCampaign(t.ctx, userId, {
        name,
        kommo_account_id: w.kommoAccountId,
        whatsapp_account_id: w.whatsappAccountId,
        template_id: w.templateId,
        filters,
      });
      return startCampaign(t.ctx, userId, c.id);
    },
    campaign: (id) => getCampaign(t.ctx.db, userId, id),
    async statuses(campaignId) {
      const rows = await rowsOf<{ status: string; n: number }>(
        t.ctx.db,
        sql`select status, count(*)::int as n from campaign_recipients where campaign_id = ${campaignId} group by status`,
      );
      return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
    },
    async close() {
      await engine.stop();
      await closeSim();
      await t.close();
    },
  };
}

export async function waitFor<T>(probe: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 15_000, label = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T = await probe();
  while (!ok(last)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${label}: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 50));
    last = await probe();
  }
  return last;
}

/** Counters recomputed from the recipient rows (what the campaign's counters must equal). */
export const countersFromRows = (bed: EngineBed<unknown>, campaignId: number) => rowCounters(bed.t.ctx.db, campaignId);
