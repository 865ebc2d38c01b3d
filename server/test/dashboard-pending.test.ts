import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/db/sql';
import { createCampaign } from '../src/services/campaigns/create-campaign';
import { startCampaign } from '../src/services/campaigns/start-campaign';
import { createTestApp, type TestApp } from './helpers/app';
import { seedCampaignWorld, type CampaignWorld } from './helpers/campaign-fixtures';

/**
 * GET /api/dashboard/pending, the "Mensajes Pendientes" card: the spec's remaining messages of
 * sending campaigns plus the recipients deferred by Meta's marketing limit that wait for their
 * automatic retry, each counted once.
 */
let t: TestApp;
type User = Awaited<ReturnType<TestApp['signUp']>>;
let a: User;
let b: User;
let worldA: CampaignWorld;
let worldB: CampaignWorld;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.signUp();
  b = await t.signUp();
  worldA = await seedCampaignWorld(t.ctx.db, t.ctx.secrets, a.userId, { number: { phoneNumberId: '7301', wabaId: '7302', token: 'tok' }, contacts: 10 });
  worldB = await seedCampaignWorld(t.ctx.db, t.ctx.secrets, b.userId, { number: { phoneNumberId: '7311', wabaId: '7312', token: 'tok' }, contacts: 10 });
});
afterAll(() => t?.close());

const pending = (user: User) => t.app.inject({ method: 'GET', url: '/api/dashboard/pending', headers: user.headers });

/**
 * A started campaign over the world's 10 contacts whose recipients are then set row by row
 * (index → state), with its counters recomputed from the rows as the transitions keep them.
 */
async function campaignWith(user: User, world: CampaignWorld, status: string, states: Record<number, 'sent' | 'deferred_unsent' | 'deferred_sent'>) {
  const created = await createCampaign(t.ctx, user.userId, {
    name: `Campaña ${status}`,
    kommo_account_id: world.kommoAccountId,
    whatsapp_account_id: world.whatsappAccountId,
    template_id: world.templateId,
  });
  await startCampaign(t.ctx, user.userId, created.id);
  const ids = await rowsOf<{ id: number }>(t.ctx.db, sql`select id from campaign_recipients where campaign_id = ${created.id} order by id`);
  for (const [i, state] of Object.entries(states)) {
    const id = ids[Number(i)]!.id;
    const sentAt = state === 'deferred_unsent' ? sql`null` : sql`now() - interval '1 hour'`;
    const status = state === 'sent' ? 'sent' : 'deferred';
    await t.ctx.db.execute(sql`update campaign_recipients set status = ${status}, sent_at = ${sentAt},
      next_attempt_at = now() + interval '1 day', deferrals = ${status === 'deferred' ? 1 : 0} where id = ${id}`);
  }
  await t.ctx.db.execute(sql`update campaigns c set status = ${status},
      total_recipients = x.total, messages_sent = x.sent, deferred_count = x.deferred, pending_count = x.pending
    from (select count(*)::int as total, (count(*) filter (where sent_at is not null))::int as sent,
            (count(*) filter (where status = 'deferred'))::int as deferred,
            (count(*) filter (where status in ('pending', 'sending')))::int as pending
          from campaign_recipients where campaign_id = ${created.id}) x
    where c.id = ${created.id}`);
  return created.id;
}

describe('GET /api/dashboard/pending', () => {
  it('is zero with no campaigns', async () => {
    const res = await pending(a);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ pending_messages: 0, deferred: 0 });
  });

  it('adds the deferred recipients waiting for their retry to the spec’s remaining messages, each once', async () => {
    // Sending: 4 sent, one deferred Meta never accepted (already in total − sent), one deferred after acceptance.
    await campaignWith(a, worldA, 'sending', { 0: 'sent', 1: 'sent', 2: 'sent', 3: 'sent', 4: 'deferred_unsent', 5: 'deferred_sent' });
    // total − sent = 10 − 5 = 5, plus the one deferred after acceptance.
    expect((await pending(a)).json()).toEqual({ pending_messages: 6, deferred: 2 });

    // Completed with 3 deferred: the spec counts nothing for it; the deferred wait for their retry.
    await campaignWith(a, worldA, 'completed', { 0: 'sent', 1: 'sent', 2: 'sent', 3: 'sent', 4: 'sent', 5: 'sent', 6: 'sent', 7: 'deferred_sent', 8: 'deferred_sent', 9: 'deferred_unsent' });
    expect((await pending(a)).json()).toEqual({ pending_messages: 9, deferred: 5 });
  });

  it('leaves out a paused campaign’s deferred (they wait for "Iniciar") and other tenants’ campaigns', async () => {
    await campaignWith(a, worldA, 'paused', { 0: 'deferred_sent', 1: 'deferred_sent' });
    await campaignWith(b, worldB, 'completed', { 0: 'deferred_sent', 1: 'deferred_sent', 2: 'deferred_unsent' });
    expect((await pending(a)).json()).toEqual({ pending_messages: 9, deferred: 5 });
    expect((await pending(b)).json()).toEqual({ pending_messages: 3, deferred: 3 });
  });

  it('needs a session', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/dashboard/pending' });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toHaveProperty('error');
  });
});
