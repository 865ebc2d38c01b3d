import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createContext } from '../src/context';
import { startCampaignEngine } from '../src/engine/campaigns/index';
import { createCampaign } from '../src/services/campaigns/create-campaign';
import { pauseCampaign } from '../src/services/campaigns/pause-campaign';
import { startCampaign } from '../src/services/campaigns/start-campaign';
import { rowsOf } from '../src/db/sql';
import { FAST_ENGINE, startEngineBed, waitFor, type EngineBed } from './helpers/engine-bed';

const A = { phoneNumberId: '1001', wabaId: '2001', token: 'tok-a', rate: 50 };
const B = { phoneNumberId: '1002', wabaId: '2002', token: 'tok-b', rate: 50 };

let bed: EngineBed;
beforeAll(async () => {
  bed = await startEngineBed({ numbers: [A, B], contacts: 150 });
});
afterAll(() => bed?.close());
beforeEach(() => bed.sim.reset());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const completed = (id: number, timeoutMs = 20_000) =>
  waitFor(() => bed.campaign(id), (c) => c.status === 'completed', timeoutMs, `campaign ${id} completed`);

describe('pause', () => {
  it('stops new requests as soon as pause returns; claimed rows go back to pending; resume sends the rest once', async () => {
    const c = await bed.launch(0, {}, 'Pausa');
    await waitFor(() => bed.campaign(c.id), (x) => x.messages_sent >= 20, 5_000, 'sending under way');
    const paused = await pauseCampaign(bed.t.ctx, bed.userId, c.id);
    const pausedAt = Date.now();
    expect(paused.status).toBe('paused');
    await sleep(1_200);
    const after = bed.sim.messages().filter((m) => m.at > pausedAt);
    // Only requests already on the wire when pause returned: at this rate one or two, a few
    // more when the shared machine delays the in-process simulator's timestamps (all of them
    // within 100 ms of the pause, checked below).
    expect(after.length).toBeLessThanOrEqual(5);
    expect(after.every((m) => m.at < pausedAt + 100)).toBe(true);
    expect(await bed.statuses(c.id)).not.toHaveProperty('sending');
    const sentBefore = bed.sim.messages().length;
    expect(sentBefore).toBeLessThan(150);

    await startCampaign(bed.t.ctx, bed.userId, c.id);
    await completed(c.id);
    expect(bed.sim.messages()).toHaveLength(150);
    expect(bed.sim.duplicates()).toEqual([]);
  });

  it('honours a pause written by another process within a second', async () => {
    const c = await bed.launch(1, {}, 'Pausa desde otra API');
    await waitFor(() => bed.campaign(c.id), (x) => x.messages_sent >= 10, 5_000, 'sending under way');
    // What an API process elsewhere does: only the database changes, no in-process signal.
    await bed.t.ctx.db.execute(sql`update campaigns set status = 'paused' where id = ${c.id}`);
    const pausedAt = Date.now();
    await sleep(1_500);
    const late = bed.sim.messages().filter((m) => m.at > pausedAt + 1_000);
    expect(late).toEqual([]);
    expect(await bed.statuses(c.id)).not.toHaveProperty('sending');
  });
});

describe('scheduled campaigns', () => {
  it('start by themselves at their time', async () => {
    const w = bed.worlds[0];
    const c = await createCampaign(bed.t.ctx, bed.userId, {
      name: 'Programada',
      kommo_account_id: w.kommoAccountId,
      whatsapp_account_id: w.whatsappAccountId,
      template_id: w.templateId,
      filters: { tags: ['vip'] },
      scheduled_at: new Date(Date.now() + 800).toISOString(),
    });
    expect(c.status).toBe('scheduled');
    await sleep(300);
    expect((await bed.campaign(c.id)).status).toBe('scheduled');
    const done = await completed(c.id, 10_000);
    expect(done.messages_sent).toBe(15);
    expect(new Date(done.started_at!).getTime()).toBeGreaterThanOrEqual(new Date(c.scheduled_at!).getTime());
  });

  it('start after a restart when their time passed while no process ran', async () => {
    await bed.engine.stop();
    const w = bed.worlds[1];
    const c = await createCampaign(bed.t.ctx, bed.userId, {
      name: 'Programada durante la caída',
      kommo_account_id: w.kommoAccountId,
      whatsapp_account_id: w.whatsappAccountId,
      template_id: w.templateId,
      filters: { tags: ['vip'] },
      scheduled_at: new Date(Date.now() + 200).toISOString(),
    });
    await sleep(600);
    expect((await bed.campaign(c.id)).status).toBe('scheduled');
    bed.engine = startCampaignEngine(bed.t.ctx, FAST_ENGINE);
    const done = await completed(c.id, 10_000);
    expect(done.messages_sent).toBe(15);
  });
});

describe('crash recovery', () => {
  it('never resends rows a dead process left in flight: they become unknown after the grace period', async () => {
    const w = bed.worlds[0];
    const c = await createCampaign(bed.t.ctx, bed.userId, {
      name: 'Tras una caída',
      kommo_account_id: w.kommoAccountId,
      whatsapp_account_id: w.whatsappAccountId,
      template_id: w.templateId,
      filters: { tags: ['vip'] },
    });
    // Freeze and mark as sending without any engine noticing, then fake a dead owner's claims.
    await bed.engine.stop();
    await startCampaign(bed.t.ctx, bed.userId, c.id);
    await bed.t.ctx.db.execute(sql`update campaign_recipients set status = 'sending', attempts = 1,
        claimed_at = now(), claim_owner = 'dead-process'
      where id in (select id from campaign_recipients where campaign_id = ${c.id} order by id limit 3)`);
    bed.engine = startCampaignEngine(bed.t.ctx, FAST_ENGINE);
    const done = await completed(c.id, 10_000);
    expect(done).toMatchObject({ unknown_count: 3, messages_sent: 12, pending_count: 0 });
    expect(bed.sim.messages()).toHaveLength(12);
    const [{ n }] = await rowsOf<{ n: number }>(
      bed.t.ctx.db,
      sql`select count(*)::int as n from campaign_recipients where campaign_id = ${c.id} and status = 'unknown' and attempts = 1`,
    );
    expect(n).toBe(3);
  });
});

describe('several workers', () => {
  it('share the numbers safely: each number paced by one of them, nobody sent twice', async () => {
    // A second process against the same database: its own instance id, its own engine.
    const otherCtx = createContext(bed.t.ctx.config, bed.t.ctx.database);
    const other = startCampaignEngine(otherCtx, FAST_ENGINE);
    try {
      const a = await bed.launch(0, {}, 'Trabajador A');
      const b = await bed.launch(1, {}, 'Trabajador B');
      await completed(a.id);
      await completed(b.id);
      expect(bed.sim.messages()).toHaveLength(300);
      expect(bed.sim.duplicates()).toEqual([]);
      const owners = await rowsOf<{ owner: string }>(bed.t.ctx.db, sql`select owner from sender_leases`);
      expect(owners.length).toBeGreaterThan(0);
      const counts = await waitFor(
        () => Promise.all([bed.campaign(a.id), bed.campaign(b.id)]),
        ([x, y]) => x.read_count === 150 && y.read_count === 150,
        10_000,
        'all read',
      );
      expect(counts.map((x) => x.messages_sent)).toEqual([150, 150]);
    } finally {
      await other.stop();
    }
  });
});
