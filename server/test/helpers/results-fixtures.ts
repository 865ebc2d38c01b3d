import { sql } from 'drizzle-orm';
import { rowsOf } from '../../src/db/sql';
import { createCampaign } from '../../src/services/campaigns/create-campaign';
import { startCampaign } from '../../src/services/campaigns/start-campaign';
import type { TestApp } from './app';
import { insertContact, insertContacts, phoneOf, seedCampaignWorld, type CampaignWorld } from './campaign-fixtures';

/**
 * A campaign that was sent, with what its twelve people did afterwards, written straight into the
 * rows (another part fills replies and taps from webhooks; these tests read them):
 *
 * | i | status | sent | what they did |
 * |---|---|---|---|
 * | 1 | read | 3 h ago | replied twice, tapped «Sí» |
 * | 2 | read | 3 h ago | — |
 * | 3 | delivered | 30 h ago | — |
 * | 4 | sent | 2 h ago | — |
 * | 5 | failed 131026 (not on WhatsApp) | — | — |
 * | 6 | failed 131000 | — | — |
 * | 7 | failed, no code | — | — |
 * | 8 | read | 3 h ago | — |
 * | 9 | read | 3 h ago | tapped «No» |
 * | 10 | delivered | 40 h ago | — |
 * | 11 | read | 3 h ago | replied a formula-looking text |
 * | 12 | pending | — | — |
 *
 * plus a 13th contact with contact 2's phone (skipped as a duplicate at the freeze).
 */
export interface SentCampaign {
  world: CampaignWorld;
  campaignId: number;
  /** Contact id of person i (1-based). */
  contactId: (i: number) => number;
}

export const FORMULA_REPLY = '=HYPERLINK("http://x.example","clic")';

export async function seedSentCampaign(t: TestApp, userId: number, number: { phoneNumberId: string; wabaId: string }): Promise<SentCampaign> {
  const { db } = t.ctx;
  const world = await seedCampaignWorld(db, t.ctx.secrets, userId, { number: { ...number, token: 'tok' } });
  await insertContacts(db, userId, world.kommoAccountId, 12);
  await insertContact(db, userId, world.kommoAccountId, { kommoId: 13, name: 'Duplicado', phone: phoneOf(2) });
  const ids = await rowsOf<{ id: number; kommo_id: number }>(db, sql`select id, kommo_id from contacts where account_id = ${world.kommoAccountId}`);
  const byIndex = new Map(ids.map((r) => [Number(r.kommo_id), Number(r.id)]));
  const contactId = (i: number) => byIndex.get(i)!;
  const created = await createCampaign(t.ctx, userId, {
    name: 'Promo de noviembre',
    kommo_account_id: world.kommoAccountId,
    whatsapp_account_id: world.whatsappAccountId,
    template_id: world.templateId,
  });
  await startCampaign(t.ctx, userId, created.id);
  const set = (i: number, assignments: ReturnType<typeof sql>) =>
    db.execute(sql`update campaign_recipients set ${assignments} where campaign_id = ${created.id} and contact_id = ${contactId(i)}`);
  const hoursAgo = (h: number) => sql`now() - make_interval(hours => ${h}::int)`;
  for (const i of [1, 2, 8, 9, 11]) {
    await set(i, sql`status = 'read', wamid = ${'wamid.' + i}, sent_at = ${hoursAgo(3)}, delivered_at = ${hoursAgo(3)}, read_at = ${hoursAgo(2)},
      pricing_category = 'marketing', pricing_type = 'regular', pricing_model = 'PMP'`);
  }
  await set(3, sql`status = 'delivered', wamid = 'wamid.3', sent_at = ${hoursAgo(30)}, delivered_at = ${hoursAgo(30)}`);
  await set(10, sql`status = 'delivered', wamid = 'wamid.10', sent_at = ${hoursAgo(40)}, delivered_at = ${hoursAgo(40)}, pricing_type = 'free_entry_point'`);
  await set(4, sql`status = 'sent', wamid = 'wamid.4', sent_at = ${hoursAgo(2)}`);
  await set(5, sql`status = 'failed', failed_at = now(), error_code = 131026, error_message = 'Mensaje no entregable'`);
  await set(6, sql`status = 'failed', failed_at = now(), error_code = 131000, error_message = 'Algo salió mal'`);
  await set(7, sql`status = 'failed', failed_at = now(), error_message = 'Sin respuesta de Meta'`);
  await set(1, sql`replied_at = ${hoursAgo(1)}, reply_count = 2, last_reply = 'Gracias', button_tapped = 'Sí'`);
  await set(9, sql`replied_at = ${hoursAgo(1)}, reply_count = 1, last_reply = 'No', button_tapped = 'No'`);
  await set(11, sql`replied_at = ${hoursAgo(1)}, reply_count = 1, last_reply = ${FORMULA_REPLY}`);
  const inbound = async (i: number, type: string, body: string) =>
    db.execute(sql`insert into inbound_messages (user_id, whatsapp_account_id, wamid, type, body, sent_at, campaign_id, recipient_id)
      select ${userId}, ${world.whatsappAccountId}, ${'in.' + created.id + '.' + i + '.' + type}, ${type}, ${body}, now(), campaign_id, id
      from campaign_recipients where campaign_id = ${created.id} and contact_id = ${contactId(i)}`);
  await inbound(1, 'button', 'Sí');
  await inbound(1, 'text', 'Gracias');
  await inbound(9, 'button', 'No');
  await inbound(11, 'text', FORMULA_REPLY);
  await db.execute(sql`update campaigns set status = 'completed', completed_at = now() where id = ${created.id}`);
  return { world, campaignId: created.id, contactId };
}
