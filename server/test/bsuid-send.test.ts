import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/db/sql';
import { insertContact } from './helpers/campaign-fixtures';
import { startEngineBed, waitFor, type EngineBed } from './helpers/engine-bed';

/**
 * Usernames: a person known only by their business-scoped user id (Meta's example
 * format `CC.alnum`) is sent the campaign through `recipient`, the simulator accepts it, and the
 * delivery statuses that carry only `recipient_user_id` settle the row. The phone beside it is
 * sent with `to` as always.
 */
const NUMBER = { phoneNumberId: '770001', wabaId: '660001', token: 'tok-bsuid', rate: 20 };
const BSUID = 'AR.13491208655302741918';
let bed: EngineBed;

beforeAll(async () => {
  bed = await startEngineBed({ numbers: [NUMBER], contacts: 3, sim: { rules: { usernameShare: 0 } } });
  const w = bed.worlds[0];
  await insertContact(bed.t.ctx.db, bed.userId, w.kommoAccountId, { kommoId: 900, name: 'Usuaria sin número', phone: null, phoneRaw: BSUID });
});
afterAll(async () => bed?.close());

describe('sending to a BSUID', () => {
  it('freezes the person by BSUID, sends with `recipient`, and applies the BSUID-only statuses', async () => {
    const c = await bed.launch(0, {}, 'Usuarios con nombre');
    expect(c.total_recipients).toBe(4);
    const done = await waitFor(() => bed.campaign(c.id), (x) => x.status === 'completed' && x.read_count === 4, 15_000, 'all read');
    expect(done.skipped_count).toBe(0);
    const [row] = await rowsOf<{ phone: string; phone_key: string; bsuid: string; status: string }>(
      bed.t.ctx.db,
      sql`select phone, phone_key, bsuid, status from campaign_recipients where campaign_id = ${c.id} and bsuid = ${BSUID}`,
    );
    // Phone normalisation never touched it: the BSUID is kept as Meta wrote it.
    expect(row).toMatchObject({ phone_key: BSUID, bsuid: BSUID, status: 'read' });
    const sent = bed.sim.messages().map((m) => m.to);
    expect(sent).toContain(BSUID);
    expect(sent.filter((to) => to.startsWith('54911'))).toHaveLength(3);
  });
});
