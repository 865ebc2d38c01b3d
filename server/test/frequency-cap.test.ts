import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/db/sql';
import { FREQUENCY_CAPPED } from '../src/services/campaigns/audience-classifier';
import { createCampaign } from '../src/services/campaigns/create-campaign';
import { freezeAudience } from '../src/services/campaigns/freeze-audience';
import { setFrequencyCap } from '../src/services/campaigns/frequency-cap';
import { startCampaign } from '../src/services/campaigns/start-campaign';
import { startEngineBed, waitFor, type EngineBed } from './helpers/engine-bed';

/**
 * The frequency cap across campaigns: a person who got the tenant's maximum of
 * marketing messages is skipped when a later audience freezes, and again by the sender's
 * re-check when another campaign reached them after the freeze.
 */
let bed: EngineBed;
const A = { phoneNumberId: '7901', wabaId: '8901', token: 'tok-cap', rate: 80 };

beforeAll(async () => {
  bed = await startEngineBed({ numbers: [A], contacts: 3, sim: { deliveryRate: 0, readRate: 0 } });
});
afterAll(() => bed?.close());

const statuses = (campaignId: number) =>
  rowsOf<{ status: string; error_message: string | null; sent: boolean }>(
    bed.t.ctx.db,
    sql`select status, error_message, sent_at is not null as sent from campaign_recipients where campaign_id = ${campaignId} order by id`,
  );

describe('the frequency cap across two campaigns', () => {
  it('the later freeze and the claim of an audience frozen earlier both respect it', async () => {
    const { db } = bed.t.ctx;
    const w = bed.worlds[0]!;
    await setFrequencyCap(db, bed.userId, { cap: { max_messages: 1, days: 7 } });
    const input = (name: string) => ({ name, kommo_account_id: w.kommoAccountId, whatsapp_account_id: w.whatsappAccountId, template_id: w.templateId });

    // Frozen before anyone was reached: all three are pending.
    const early = await createCampaign(bed.t.ctx, bed.userId, input('Congelada antes'));
    await db.transaction(async (tx) => {
      await freezeAudience(tx as never, { id: early.id, userId: bed.userId, kommoAccountId: w.kommoAccountId, filters: early.filters });
    });
    expect((await statuses(early.id)).map((r) => r.status)).toEqual(['pending', 'pending', 'pending']);

    // Another campaign reaches the three.
    const first = await bed.launch(0, {}, 'Primera');
    await waitFor(() => bed.campaign(first.id), (c) => c.status === 'completed', 15_000, 'first completed');
    expect((await bed.campaign(first.id)).messages_sent).toBe(3);

    // A campaign frozen now skips them at the freeze.
    const later = await createCampaign(bed.t.ctx, bed.userId, input('Congelada después'));
    const started = await startCampaign(bed.t.ctx, bed.userId, later.id);
    expect(started).toMatchObject({ status: 'completed', total_recipients: 3, pending_count: 0, skipped_count: 3 });
    expect((await statuses(later.id)).every((r) => r.status === 'skipped' && r.error_message === FREQUENCY_CAPPED)).toBe(true);

    // The campaign frozen before: its sender re-check skips them instead of sending.
    await startCampaign(bed.t.ctx, bed.userId, early.id);
    const done = await waitFor(() => bed.campaign(early.id), (c) => c.status === 'completed', 15_000, 'early completed');
    expect(done).toMatchObject({ messages_sent: 0, skipped_count: 3 });
    const rows = await statuses(early.id);
    expect(rows.every((r) => r.status === 'skipped' && r.error_message === FREQUENCY_CAPPED && !r.sent)).toBe(true);

    // With the cap off, a new campaign reaches them again.
    await setFrequencyCap(db, bed.userId, { cap: null });
    const again = await createCampaign(bed.t.ctx, bed.userId, input('Sin tope'));
    expect(await startCampaign(bed.t.ctx, bed.userId, again.id)).toMatchObject({ pending_count: 3, skipped_count: 0 });
    await waitFor(() => bed.campaign(again.id), (c) => c.status === 'completed', 15_000, 'again completed');
    expect((await bed.campaign(again.id)).messages_sent).toBe(3);
  });
});
