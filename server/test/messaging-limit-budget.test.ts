import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/db/sql';
import { insertContacts } from './helpers/campaign-fixtures';
import { startEngineBed, waitFor, type EngineBed } from './helpers/engine-bed';

/**
 * Two numbers of ONE business portfolio share its messaging limit: unique recipients reached
 * by either within 24 h count once, a campaign starts only as many new people as are left,
 * waits with the time it resumes, and resumes by itself when the window moves on (the
 * window is moved here by shifting the stored reach times, not by waiting a day).
 */
let bed: EngineBed;

beforeAll(async () => {
  bed = await startEngineBed({
    numbers: [
      { phoneNumberId: '7101', wabaId: '8101', token: 'tok-a', rate: 80 },
      { phoneNumberId: '7102', wabaId: '8102', token: 'tok-b', rate: 80 },
      // A slow number of another portfolio, whose limit is learned while it sends.
      { phoneNumberId: '7103', wabaId: '8103', token: 'tok-c', rate: 4 },
    ],
    contacts: 4,
  });
  // The second number's audience: the same four people, and four more.
  await insertContacts(bed.t.ctx.db, bed.userId, bed.worlds[1]!.kommoAccountId, 4, 5);
  await bed.t.ctx.db.execute(sql`update whatsapp_accounts set business_portfolio_id = 'P-1', daily_limit = 6
    where id in (${bed.worlds[0]!.whatsappAccountId}, ${bed.worlds[1]!.whatsappAccountId})`);
  await insertContacts(bed.t.ctx.db, bed.userId, bed.worlds[2]!.kommoAccountId, 8, 20);
  await bed.t.ctx.db.execute(sql`update whatsapp_accounts set business_portfolio_id = 'P-2', daily_limit = null
    where id = ${bed.worlds[2]!.whatsappAccountId}`);
});
afterAll(() => bed?.close());

const reach = async () => {
  const [r] = await rowsOf<{ n: number }>(
    bed.t.ctx.db,
    sql`select count(*)::int as n from portfolio_reach where user_id = ${bed.userId} and portfolio_id = 'P-1'
        and reached_at > now() - interval '24 hours'`,
  );
  return Number(r!.n);
};

const settledSent = (s: Record<string, number>) => (s.sent ?? 0) + (s.delivered ?? 0) + (s.read ?? 0);

describe('the messaging limit of a business portfolio', () => {
  it('is shared by its numbers, counts each person once, waits at the limit and resumes by itself', async () => {
    const first = await bed.launch(0, {}, 'Número A');
    await waitFor(() => bed.campaign(first.id), (c) => c.status === 'completed', 15_000, 'first campaign completed');
    expect(await reach()).toBe(4);

    const second = await bed.launch(1, {}, 'Número B');
    // The four people number A reached cost nothing; two new ones fit; two wait.
    const waiting = await waitFor(
      () => bed.campaign(second.id),
      (c) => c.limit_wait_until !== null && c.messages_sent === 6,
      15_000,
      'second campaign waiting for the limit',
    );
    expect(waiting.status).toBe('sending');
    expect(waiting.pending_count).toBe(2);
    expect(await reach()).toBe(6);
    // It resumes when the oldest person of the window drops out: 24 h after number A's first send.
    const [oldest] = await rowsOf<{ at: string }>(
      bed.t.ctx.db,
      sql`select to_char((min(reached_at) + interval '24 hours') at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') as at
          from portfolio_reach where user_id = ${bed.userId} and portfolio_id = 'P-1'`,
    );
    expect(waiting.limit_wait_until!.slice(0, 19)).toBe(oldest!.at);
    // Nothing more goes out while it waits, to anyone.
    await new Promise((r) => setTimeout(r, 800));
    expect(settledSent(await bed.statuses(second.id))).toBe(6);
    const waitingPhones = await rowsOf<{ phone: string }>(
      bed.t.ctx.db,
      sql`select phone from campaign_recipients where campaign_id = ${second.id} and status = 'pending'`,
    );
    const reachedByA = ['+5491100000001', '+5491100000002', '+5491100000003', '+5491100000004'];
    expect(waitingPhones.every((p) => !reachedByA.includes(p.phone))).toBe(true);
    const unique = new Set(bed.sim.messages().map((m) => m.to));
    expect(unique.size).toBe(6);

    // A day later (the stored reach times moved back), the campaign sends the rest by itself.
    await bed.t.ctx.db.execute(sql`update portfolio_reach set reached_at = reached_at - interval '24 hours 1 minute'
      where user_id = ${bed.userId}`);
    const done = await waitFor(() => bed.campaign(second.id), (c) => c.status === 'completed', 15_000, 'second campaign completed');
    expect(done).toMatchObject({ messages_sent: 8, pending_count: 0, limit_wait_until: null });
    expect(await reach()).toBe(2);
  });

  it('a limit learned while a campaign sends is enforced from the next claim on', async () => {
    // No limit known: claims take the one-statement path (claim.ts, claimUnlimited).
    const c = await bed.launch(2, {}, 'Número C');
    await waitFor(() => bed.campaign(c.id), (x) => x.messages_sent >= 2, 15_000, 'first sends of number C');
    await bed.t.ctx.db.execute(sql`update whatsapp_accounts set daily_limit = 5 where id = ${bed.worlds[2]!.whatsappAccountId}`);
    // What was claimed before the limit was known still goes out; nothing claimed after it passes the limit.
    await new Promise((r) => setTimeout(r, 300));
    const [{ n: claimedBefore }] = await rowsOf<{ n: number }>(
      bed.t.ctx.db,
      sql`select count(*)::int as n from campaign_recipients where campaign_id = ${c.id} and status <> 'pending'`,
    );
    const expected = Math.max(Number(claimedBefore), 5);
    const total = (await bed.campaign(c.id)).total_recipients;
    expect(total).toBeGreaterThan(expected);
    const waiting = await waitFor(
      () => bed.campaign(c.id),
      (x) => x.limit_wait_until !== null && x.messages_sent === expected,
      15_000,
      'number C waiting for its limit',
    );
    expect(waiting.pending_count).toBe(total - expected);
    await new Promise((r) => setTimeout(r, 800));
    expect((await bed.campaign(c.id)).messages_sent).toBe(expected);
  });
});
