import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/db/sql';
import { BLACKLISTED } from '../src/engine/campaigns/sender';
import { phoneKey } from '../src/lib/phone';
import { MARKETING_STOP_REASON } from '../src/services/blacklist/origins';
import { digitsOf, phoneOf } from './helpers/campaign-fixtures';
import { APP_SECRET, startEngineBed, waitFor, type EngineBed } from './helpers/engine-bed';
import { postWebhook } from './helpers/webhook';
import * as meta from './fixtures/meta-webhooks';

/**
 * Opt-outs at claim time: a marketing stop (user_preferences or 131050) and a keyword opt-out reach
 * a RUNNING campaign before its next claim: the sender checks the blacklist on every claim.
 */
const A = { phoneNumberId: '1001', wabaId: '2001', token: 'tok-a', rate: 4 };
let bed: EngineBed;
beforeAll(async () => {
  bed = await startEngineBed({ numbers: [A], contacts: 12 });
});
afterAll(() => bed?.close());

describe('opt-outs while a campaign sends', () => {
  it('131050 on send blacklists; a stop and a BAJA arriving mid-campaign skip those people', async () => {
    bed.sim.injectFault({ kind: 'code', code: 131050, count: 1, phoneNumberId: A.phoneNumberId });
    const started = await bed.launch(0, {}, 'Mientras envía');
    const route = { wabaId: A.wabaId, phoneNumberId: A.phoneNumberId };
    expect((await postWebhook(bed.t.app, APP_SECRET, meta.userPreferences(route, { waId: digitsOf(10), value: 'stop' }))).statusCode).toBe(200);
    expect((await postWebhook(bed.t.app, APP_SECRET, meta.inboundText(route, { from: digitsOf(11), body: 'Sair' }))).statusCode).toBe(200);

    const done = await waitFor(() => bed.campaign(started.id), (c) => c.status === 'completed' && c.pending_count === 0, 30_000, 'campaign completed');
    expect(done.skipped_count).toBe(2);

    const rows = await rowsOf<{ phone: string; status: string; error_code: number | null; error_message: string | null }>(
      bed.t.ctx.db,
      sql`select phone, status, error_code, error_message from campaign_recipients where campaign_id = ${started.id} order by id`,
    );
    const byPhone = new Map(rows.map((r) => [r.phone, r]));
    expect(byPhone.get(phoneOf(10))).toMatchObject({ status: 'skipped', error_message: BLACKLISTED });
    expect(byPhone.get(phoneOf(11))).toMatchObject({ status: 'skipped', error_message: BLACKLISTED });
    const sentTo = new Set(bed.sim.messages().map((m) => m.to));
    expect(sentTo.has(digitsOf(10))).toBe(false);
    expect(sentTo.has(digitsOf(11))).toBe(false);

    // The one send that met 131050 failed for good and put its person on the blacklist.
    const failed = rows.filter((r) => r.error_code === 131050);
    expect(failed).toHaveLength(1);
    expect(failed[0].status).toBe('failed');
    const listed = await rowsOf<{ phone_key: string; reason: string; origin: string }>(
      bed.t.ctx.db,
      sql`select phone_key, reason, origin from blacklist where user_id = ${bed.userId} order by id`,
    );
    expect(listed).toContainEqual({ phone_key: phoneKey(failed[0].phone), reason: MARKETING_STOP_REASON, origin: 'meta_marketing' });
    expect(listed).toContainEqual({ phone_key: phoneKey(phoneOf(10)), reason: MARKETING_STOP_REASON, origin: 'meta_marketing' });
    expect(listed).toContainEqual(expect.objectContaining({ phone_key: phoneKey(phoneOf(11)), origin: 'keyword' }));
  });
});
