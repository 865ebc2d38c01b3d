import { startWhatsAppSim, type WhatsAppSim } from '@masivo/simulators/whatsapp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simPromoTemplate } from './helpers/campaign-fixtures';
import { CHAOS_WEBHOOK_SECRET, runChaos } from './helpers/chaos-run';

/**
 * The server is killed with SIGKILL at random moments while it sends, and restarted. Needs
 * PostgreSQL (several processes over one database); the full run (20,000 recipients, 10
 * kills) is bench/chaos.bench.ts.
 */
const adminUrl = process.env.TEST_DATABASE_URL;

describe.skipIf(!adminUrl)('chaos: SIGKILL while sending', () => {
  let sim: WhatsAppSim;
  beforeAll(async () => {
    sim = await startWhatsAppSim({
      appSecret: CHAOS_WEBHOOK_SECRET,
      templates: [simPromoTemplate('8001')],
      deliveryRate: 1,
      readRate: 0.5,
      statusDelayMs: 30,
    });
  });
  afterAll(() => sim?.close());

  it('sends nobody twice, settles everyone, and leaves unknown only among rows in flight at a kill', async () => {
    const result = await runChaos({
      adminUrl: adminUrl!,
      recipients: 2_000,
      kills: 3,
      ratePerSecond: 200,
      killAfterMs: [1_500, 3_000],
      sim: {
        graphUrl: sim.graphUrl,
        setWebhookUrl: async (url) => sim.configure({ webhookUrl: url }),
        addNumber: async (n) => sim.addNumber({ ...n, displayPhoneNumber: '5491100000000', throughput: 10_000 }),
        counts: async () => Object.fromEntries(sim.countsByRecipient()),
        duplicates: async () => sim.duplicates(),
      },
    });
    expect(result.kills).toBeGreaterThanOrEqual(3);
    expect(result.duplicates).toBe(0);
    expect(result.status).toBe('completed');
    expect(result.unsettled).toBe(0);
    expect(result.unknown).toBeLessThanOrEqual(result.inFlightAtKills.reduce((a, b) => a + b, 0));
    // Everyone Meta accepted is counted as sent or, if its answer was lost with the process, unknown.
    expect(result.counters.sent + result.unknown).toBeGreaterThanOrEqual(result.accepted);
    expect(result.counters.sent).toBeLessThanOrEqual(result.accepted);
    expect(result.counters.sent + result.counters.failed + result.unknown).toBe(2_000);
  }, 90_000);
});
