import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/db/sql';
import { countersFromRows, startEngineBed, waitFor, type EngineBed } from './helpers/engine-bed';

/** Two numbers on the simulator, each with 60 contacts of its own. */
const A = { phoneNumberId: '1001', wabaId: '2001', token: 'tok-a', rate: 25 };
const B = { phoneNumberId: '1002', wabaId: '2002', token: 'tok-b', rate: 25 };

let bed: EngineBed;
beforeAll(async () => {
  bed = await startEngineBed({ numbers: [A, B], contacts: 60 });
});
afterAll(() => bed?.close());
beforeEach(() => bed.sim.reset());

const done = (id: number) =>
  waitFor(
    () => bed.campaign(id),
    (c) => c.status === 'completed' && c.read_count === c.messages_sent,
    20_000,
    `campaign ${id} completed and read`,
  );

describe('sending a campaign', () => {
  it('sends every recipient once with the rendered template and completes with exact counts', async () => {
    const started = await bed.launch(0, { tags: ['general'] });
    expect(started.status).toBe('sending');
    expect(started.total_recipients).toBe(54);
    const c = await done(started.id);
    expect(c).toMatchObject({
      status: 'completed',
      total_recipients: 54,
      messages_sent: 54,
      delivered_count: 54,
      read_count: 54,
      failed_count: 0,
      pending_count: 0,
      unknown_count: 0,
    });
    expect(c.completed_at).not.toBeNull();
    expect(await countersFromRows(bed, c.id)).toMatchObject({ messages_sent: 54, delivered_count: 54, read_count: 54 });

    const sent = bed.sim.messages();
    expect(sent).toHaveLength(54);
    expect(bed.sim.duplicates()).toEqual([]);
    const first = sent.find((m) => m.to === '5491100000001')!;
    expect(first).toMatchObject({ phoneNumberId: '1001', template: 'promo', language: 'es' });
    expect(first.bizOpaque).toMatch(new RegExp(`^masivo:${c.id}:\\d+:[0-9a-f]{20}$`));
    expect(first.components).toEqual([
      { type: 'header', parameters: [{ type: 'text', text: 'Pro' }] },
      { type: 'body', parameters: [{ type: 'text', text: 'Nombre1' }, { type: 'text', text: 'Rosario' }] },
    ]);

    const page = await rowsOf<{ status: string; wamid: string | null }>(
      bed.t.ctx.db,
      sql`select status, wamid from campaign_recipients where campaign_id = ${c.id}`,
    );
    expect(page.every((r) => r.status === 'read' && r.wamid?.startsWith('wamid.'))).toBe(true);

    const [count] = await rowsOf<{ sent: number; last: string | null }>(
      bed.t.ctx.db,
      sql`select m.sent, a.last_message_sent_at::text as last from whatsapp_message_counts m
          join whatsapp_accounts a on a.id = m.whatsapp_account_id
          where m.whatsapp_account_id = ${bed.worlds[0].whatsappAccountId} and m.day = current_date`,
    );
    expect(Number(count.sent)).toBeGreaterThanOrEqual(54);
    expect(count.last).not.toBeNull();
  });

  it('keeps counts exact when webhooks come twice and out of order', async () => {
    bed.sim.configure({ duplicateWebhooks: true, reorderWebhooks: true });
    try {
      const c = await done((await bed.launch(1, {}, 'Webhooks desordenados')).id);
      expect(c).toMatchObject({ messages_sent: 60, delivered_count: 60, read_count: 60, failed_count: 0 });
      await bed.sim.flushWebhooks();
      await new Promise((r) => setTimeout(r, 300));
      expect(await bed.campaign(c.id)).toMatchObject(await countersFromRows(bed, c.id));
      expect(await bed.statuses(c.id)).toEqual({ read: 60 });
    } finally {
      bed.sim.configure({ duplicateWebhooks: false, reorderWebhooks: false });
    }
  });
});
