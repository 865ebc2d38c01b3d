import { createServer } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWhatsAppSim, type WhatsAppSim } from '@masivo/simulators/whatsapp';
import { startCampaignEngine, type CampaignEngine } from '../src/engine/campaigns/index';
import { getCampaign } from '../src/services/campaigns/campaign-queries';
import { createCampaign } from '../src/services/campaigns/create-campaign';
import { retryFailed, retryUnknown } from '../src/services/campaigns/retry-failed';
import { startCampaign } from '../src/services/campaigns/start-campaign';
import { rowsOf } from '../src/db/sql';
import { createTestApp, type TestApp } from './helpers/app';
import { seedCampaignWorld, simPromoTemplate, type CampaignWorld } from './helpers/campaign-fixtures';
import { APP_SECRET, FAST_ENGINE, waitFor } from './helpers/engine-bed';

/**
 * The review's scenario (a) for "Reintentar fallidos": Meta unreachable while rows are
 * claimed and queued, the operator retries, then Meta comes back. Nobody may get the
 * message twice.
 */
const CONTACTS = 30;
let t: TestApp;
let engine: CampaignEngine;
let sim: WhatsAppSim | null = null;
let userId: number;
let world: CampaignWorld;
let port: number;
let webhookUrl: string;

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port: p } = s.address() as { port: number };
      s.close(() => resolve(p));
    });
  });

beforeAll(async () => {
  port = await freePort();
  // Nothing listens there yet: every connection is refused, as when Meta is unreachable.
  t = await createTestApp({ WHATSAPP_GRAPH_URL: `http://127.0.0.1:${port}/v23.0`, WHATSAPP_APP_SECRET: APP_SECRET });
  webhookUrl = `${await t.app.listen({ port: 0, host: '127.0.0.1' })}/api/webhooks/whatsapp`;
  ({ userId } = await t.signUp());
  world = await seedCampaignWorld(t.ctx.db, t.ctx.secrets, userId, {
    number: { phoneNumberId: '1001', wabaId: '2001', token: 'tok', ratePerSecond: 20 },
    contacts: CONTACTS,
  });
  engine = startCampaignEngine(t.ctx, FAST_ENGINE);
});
afterAll(async () => {
  await engine?.stop();
  await sim?.close();
  await t?.close();
});

describe('Meta unreachable while rows are queued, then a retry, then Meta back', () => {
  it('marks no queued row unknown, and sends everyone exactly once', async () => {
    const draft = await createCampaign(t.ctx, userId, {
      name: 'Caída de Meta',
      kommo_account_id: world.kommoAccountId,
      whatsapp_account_id: world.whatsappAccountId,
      template_id: world.templateId,
    });
    const c = await startCampaign(t.ctx, userId, draft.id);

    // Well past the grace period (2.5 s) with the pacer holding longer and longer.
    let maxUnknown = 0;
    let maxQueuedLong = 0;
    const downUntil = Date.now() + 6_000;
    while (Date.now() < downUntil) {
      const now = await getCampaign(t.ctx.db, userId, c.id);
      maxUnknown = Math.max(maxUnknown, now.unknown_count);
      // Rows claimed more than the grace period ago and never dispatched: must not pile up.
      const [q] = await rowsOf<{ n: number }>(
        t.ctx.db,
        sql`select count(*)::int as n from campaign_recipients where campaign_id = ${c.id} and status = 'sending'
            and dispatched_at is null and claimed_at < now() - interval '3 seconds'`,
      );
      maxQueuedLong = Math.max(maxQueuedLong, Number(q.n));
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(maxUnknown).toBe(0);
    expect(maxQueuedLong).toBe(0);

    // What an operator does on seeing the trouble.
    await retryFailed(t.ctx, userId, c.id);
    await retryUnknown(t.ctx, userId, c.id);

    sim = await startWhatsAppSim({
      port,
      appSecret: APP_SECRET,
      webhookUrl,
      numbers: [{ phoneNumberId: '1001', wabaId: '2001', token: 'tok', displayPhoneNumber: '5491100000000', throughput: 10_000 }],
      templates: [simPromoTemplate('2001')],
      deliveryRate: 1,
      readRate: 1,
      statusDelayMs: 20,
    });

    const done = await waitFor(
      async () => {
        const now = await getCampaign(t.ctx.db, userId, c.id);
        // Transient failures while Meta was down may have used up a row's attempts: retried as an operator would.
        if (now.failed_count > 0) await retryFailed(t.ctx, userId, c.id);
        return now;
      },
      (x) => x.status === 'completed' && x.messages_sent === CONTACTS,
      45_000,
      'campaign sent once Meta is back',
    );
    expect(done).toMatchObject({ messages_sent: CONTACTS, unknown_count: 0, failed_count: 0 });
    expect(sim.duplicates()).toEqual([]);
    expect(sim.messages()).toHaveLength(CONTACTS);
    expect([...sim.countsByRecipient().values()].every((n) => n === 1)).toBe(true);
  }, 80_000);
});
