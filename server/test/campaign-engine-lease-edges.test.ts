import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngineBed, waitFor, type EngineBed } from './helpers/engine-bed';

/**
 * L3: the lease and the stopping flag are checked right before each dispatch, not only at
 * the top of the sender's loop: a slow database await in between (campaign refresh, account
 * refresh, claim) may outlive the lease.
 */
const A = { phoneNumberId: '1001', wabaId: '2001', token: 'tok-a', rate: 20 };

let bed: EngineBed;
beforeAll(async () => {
  bed = await startEngineBed({ numbers: [A], contacts: 200 });
});
afterAll(() => bed?.close());

interface SenderInternals {
  trustedUntil: number;
  refreshedAt: number;
  refreshCampaigns: () => Promise<void>;
}

describe('a lease that lapses during an await of the sender loop', () => {
  it('stops dispatching at once', async () => {
    const c = await bed.launch(0, {}, 'Concesión');
    await waitFor(() => bed.campaign(c.id), (x) => x.messages_sent >= 5, 10_000, 'sending under way');
    const sender = bed.engine.senders.get(bed.worlds[0].whatsappAccountId) as unknown as SenderInternals;
    expect(sender).toBeTruthy();
    // Every refresh now "takes" until past the lease's trusted time, as a stalled database would.
    sender.refreshCampaigns = async () => {
      sender.refreshedAt = -Infinity;
      sender.trustedUntil = 0;
    };
    // Requests already on the wire may still land.
    await new Promise((r) => setTimeout(r, 300));
    const before = bed.sim.messages().length;
    await new Promise((r) => setTimeout(r, 2_000));
    // The lease manager renews the lease meanwhile; each time, the refresh lapses it again.
    expect(bed.sim.messages().length - before).toBe(0);
  });
});
