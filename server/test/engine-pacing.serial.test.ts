import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRemoteEngineBed, waitFor, type EngineBed } from './helpers/engine-bed';
import type { RemoteWhatsAppSim } from './helpers/whatsapp-sim-process';

/**
 * Rates are measured by the simulator on arrival, so it runs in its own process here: in
 * ours, its timestamps would be late whenever our own work held the event loop.
 */
const A = { phoneNumberId: '1001', wabaId: '2001', token: 'tok-a', rate: 25 };
const B = { phoneNumberId: '1002', wabaId: '2002', token: 'tok-b', rate: 40 };

let bed: EngineBed<RemoteWhatsAppSim>;
beforeAll(async () => {
  // Fewer webhooks: the simulator's own busy moments would show up as jitter in its timestamps.
  bed = await startRemoteEngineBed({ numbers: [A, B], contacts: 80, sim: { readRate: 0 } });
});
afterAll(() => bed?.close());

const completed = (id: number) =>
  waitFor(() => bed.campaign(id), (c) => c.status === 'completed', 20_000, `campaign ${id} completed`);

function rateOf(times: number[]) {
  return (times.length - 1) / ((times.at(-1)! - times[0]) / 1000);
}

describe('pacing', () => {
  it('holds each number’s rate in every one-second window; campaigns on one number share it, numbers run in parallel', async () => {
    const startedAt = Date.now();
    const vip = await bed.launch(0, { tags: ['vip'] }, 'VIP');
    const rest = await bed.launch(0, { tags: ['general'] }, 'General');
    const other = await bed.launch(1, {}, 'Otro número');
    // Both campaigns of number A progress from the start: they take turns.
    await waitFor(
      () => Promise.all([bed.campaign(vip.id), bed.campaign(rest.id)]),
      ([a, b]) => a.messages_sent > 0 && b.messages_sent > 0,
      3_000,
      'both campaigns of one number sending',
    );
    await Promise.all([completed(vip.id), completed(rest.id), completed(other.id)]);
    const elapsed = (Date.now() - startedAt) / 1000;

    const a = await bed.sim.timestamps(A.phoneNumberId);
    const b = await bed.sim.timestamps(B.phoneNumberId);
    expect(a).toHaveLength(80);
    expect(b).toHaveLength(80);
    expect(await bed.sim.maxInAnyWindow(A.phoneNumberId, 1000)).toBeLessThanOrEqual(A.rate);
    expect(await bed.sim.maxInAnyWindow(B.phoneNumberId, 1000)).toBeLessThanOrEqual(B.rate);
    // Paced at the configured rate, not trickled (the bench measures it precisely; this
    // machine is shared, so the test leaves room for an embedded database's pauses).
    expect(rateOf(a)).toBeGreaterThan(A.rate * 0.8);
    expect(rateOf(b)).toBeGreaterThan(B.rate * 0.8);
    // In parallel: one after the other would take 80/25 + 80/40 = 5.2 s at least.
    expect(elapsed).toBeLessThan(5);
    expect(await bed.sim.duplicates()).toEqual([]);
  });
});
