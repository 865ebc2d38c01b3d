import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWhatsAppSim, type WhatsAppSim } from '../src/whatsapp/index';
import { call, templateSend } from './helpers/graph';

/**
 * Latency jitter on the way in: a send is timestamped, and counted for throughput,
 * when it ARRIVES, after its share of a long-tailed delay. Requests sent together arrive spread.
 */
const PN = '1001';
const WABA = '2001';
const TOKEN = 'wa-token';

describe('WhatsApp simulator: latency jitter', () => {
  let sim: WhatsAppSim;
  beforeAll(async () => {
    sim = await startWhatsAppSim({
      numbers: [{ phoneNumberId: PN, wabaId: WABA, token: TOKEN, displayPhoneNumber: '5491150000000', throughput: 1000 }],
      templates: [{ wabaId: WABA, name: 'simple', language: 'es', category: 'UTILITY', components: [{ type: 'BODY', text: 'Tu pago vence pronto.' }] }],
      latencyJitter: { baseMs: 20, tailMeanMs: 10, capMs: 45 },
    });
  });
  afterAll(() => sim?.close());

  it('timestamps each send on arrival, between the base delay and the cap', async () => {
    const sentAt = performance.timeOrigin + performance.now();
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => call(`${sim.graphUrl}/${PN}/messages`, { token: TOKEN, body: templateSend(`5491100${String(i).padStart(5, '0')}`, 'simple') })),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    const delays = sim.timestamps(PN).map((t) => t - sentAt);
    expect(delays).toHaveLength(40);
    // Timers may fire a millisecond early; the cap bounds the jitter, not the event loop, which a
    // loaded machine (the whole suite at once on two cores) slows by some hundreds of milliseconds.
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(19);
    expect(Math.max(...delays)).toBeLessThan(45 + 1_000);
    // Sent together, they arrive spread out by the tail.
    expect(Math.max(...delays) - Math.min(...delays)).toBeGreaterThan(5);
  });

  it('is configured at run time and refuses nonsense', () => {
    expect(() => sim.configure({ latencyJitter: { baseMs: -1, tailMeanMs: 15, capMs: 80 } })).toThrow(/latencyJitter.baseMs/);
    expect(() => sim.configure({ latencyJitter: { baseMs: 5 } as never })).toThrow(/latencyJitter.tailMeanMs/);
    sim.configure({ latencyJitter: null });
    sim.configure({ latencyJitter: { baseMs: 5, tailMeanMs: 15, capMs: 80 } });
  });
});
