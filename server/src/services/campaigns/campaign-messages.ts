import { variantLabel } from '@masivo/contract/split-test';
import { sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { CampaignMessagesPage, RecipientStatus, campaignMessagesQuerySchema } from '@masivo/contract/campaigns';
import type { Db } from '../../db/client';
import { loadCampaignRow } from './campaign-queries';
import { recipientGroupWhere } from './recipient-groups';
import { isoOf, rowsOf } from '../../db/sql';
import { ROUTE_OF_RECIPIENT } from './campaign-marketing';

export type CampaignMessagesQuery = z.output<typeof campaignMessagesQuerySchema>;

interface RawMessage {
  id: number | string;
  contact_id: number | string | null;
  contact_name: string | null;
  phone: string | null;
  status: RecipientStatus;
  error_code: number | null;
  error_message: string | null;
  wamid: string | null;
  attempts: number;
  whatsapp_account_id: number | string | null;
  sent_at: string | null;
  delivered_at: string | null;
  read_at: string | null;
  failed_at: string | null;
  held: boolean;
  pricing_category?: string | null;
  route?: 'messages' | 'marketing_messages' | null;
  click_count?: number | string;
  clicked_at?: string | null;
  replied_at: string | null;
  reply_count: number | string;
  last_reply: string | null;
  button_tapped: string | null;
  lead_id: number | string | null;
  due_at: string | null;
  variant: number | string | null;
}

/**
 * One page of a campaign's recipients in a stable order, optionally of one status. The campaign
 * is looked up on `db` (the primary); the page is read from `reads` (the route's `ctx.readDb`).
 */
export async function listMessages(db: Db, userId: number, id: number, query: CampaignMessagesQuery, reads: Db = db): Promise<CampaignMessagesPage> {
  const campaign = await loadCampaignRow(db, userId, id);
  const page = query.page ?? 1;
  const limit = query.limit ?? 50;
  const conditions = [sql`r.campaign_id = ${id}`];
  if (query.status) conditions.push(sql`r.status = ${query.status}`);
  const group = recipientGroupWhere(query);
  if (group) conditions.push(group);
  const where = sql.join(conditions, sql` and `);
  const [count] = await rowsOf<{ n: number | string }>(reads, sql`select count(*)::int as n from campaign_recipients r where ${where}`);
  const rows = await rowsOf<RawMessage>(
    reads,
    sql`select r.id, r.contact_id, c.name as contact_name, coalesce(r.phone, c.phone_raw) as phone, r.status,
          r.error_code, r.error_message, r.wamid, r.attempts, r.whatsapp_account_id,
          ${isoOf(sql`r.sent_at`)} as sent_at, ${isoOf(sql`r.delivered_at`)} as delivered_at,
          ${isoOf(sql`r.read_at`)} as read_at, ${isoOf(sql`r.failed_at`)} as failed_at, r.pricing_category,
          ${ROUTE_OF_RECIPIENT} as route, r.click_count, ${isoOf(sql`r.clicked_at`)} as clicked_at,
          ${isoOf(sql`r.replied_at`)} as replied_at, r.reply_count, r.last_reply, r.button_tapped,
          (r.held_at is not null and r.status = 'sent') as held,
          r.lead_id, case when r.status = 'waiting' then ${isoOf(sql`r.next_attempt_at`)} end as due_at, r.variant
        from campaign_recipients r
        left join contacts c on c.id = r.contact_id and c.user_id = ${userId}
        where ${where}
        order by r.id
        limit ${limit} offset ${(page - 1) * limit}`,
  );
  return {
    messages: rows.map((r) => ({
      id: Number(r.id),
      contact_id: r.contact_id === null ? null : Number(r.contact_id),
      contact_name: r.contact_name,
      phone: r.phone,
      status: r.status,
      error_code: r.error_code === null ? null : Number(r.error_code),
      error_message: r.error_message,
      wamid: r.wamid,
      attempts: Number(r.attempts),
      // Its number: its own in a several-number campaign, else the campaign's.
      whatsapp_account_id: r.whatsapp_account_id === null ? campaign.whatsappAccountId : Number(r.whatsapp_account_id),
      sent_at: r.sent_at,
      delivered_at: r.delivered_at,
      read_at: r.read_at,
      failed_at: r.failed_at,
      held: Boolean(r.held),
      pricing_category: r.pricing_category ?? null,
      route: r.route ?? null,
      click_count: Number(r.click_count ?? 0),
      clicked_at: r.clicked_at ?? null,
      replied_at: r.replied_at,
      reply_count: Number(r.reply_count ?? 0),
      last_reply: r.last_reply,
      button_tapped: r.button_tapped,
      // An automatic campaign's recipient: its lead, and while waiting its due time («Programado para …»).
      lead_id: r.lead_id === null || r.lead_id === undefined ? null : Number(r.lead_id),
      due_at: r.due_at ?? null,
      // A split test's arm ('A'…'D'); null outside one, or while waiting for the winner.
      variant: r.variant === null || r.variant === undefined ? null : variantLabel(Number(r.variant)),
    })),
    total: Number(count?.n ?? 0),
    page,
    limit,
  };
}
