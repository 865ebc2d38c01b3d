import { automationView } from '../automations/automation-view';
import { and, desc, eq, sql } from 'drizzle-orm';
import type { Campaign } from '@masivo/contract/campaigns';
import type { Db } from '../../db/client';
import { campaigns, templates } from '../../db/schema/index';
import { rowsOf } from '../../db/sql';
import { notFound } from '../../lib/errors';
import { toCampaign, type CampaignRow } from './campaign-view';
import { campaignCost } from './campaign-cost';
import { campaignMarketing } from './campaign-marketing';
import { approvalView } from './approval-view';
import { splitTestView } from './split-test-view';
import { numberProgress, numbersOfCampaigns } from './campaign-numbers';

export const CAMPAIGN_NOT_FOUND = 'Campaña no encontrada';

/** The user's campaigns, newest first. */
export async function listCampaigns(db: Db, userId: number): Promise<Campaign[]> {
  const rows = await db
    .select()
    .from(campaigns)
    .where(eq(campaigns.userId, userId))
    .orderBy(desc(campaigns.createdAt), desc(campaigns.id));
  const numbers = await numbersOfCampaigns(db, userId, rows.map((r) => r.id));
  return rows.map((r) => withNumbers(toCampaign(r), numbers.get(r.id)));
}

/**
 * One campaign with what the detail screen adds: how many of its messages Meta holds for
 * quality assessment, and what Meta reported about its template (pause, category change).
 */
export async function getCampaign(db: Db, userId: number, id: number): Promise<Campaign> {
  return campaignDetail(db, userId, await loadCampaignRow(db, userId, id));
}

/**
 * The detail view of a row already read (every single-campaign answer is this view). Its parts
 * are independent reads, asked together: on PostgreSQL the pool answers them at once (the start
 * of a campaign returns this view while other numbers send, so its latency is the next start's
 * wait), and the embedded database takes them in turn as before.
 */
export async function campaignDetail(db: Db, userId: number, row: CampaignRow): Promise<Campaign> {
  const numbers = (await numbersOfCampaigns(db, userId, [row.id])).get(row.id);
  const campaign = withNumbers(toCampaign(row), numbers);
  const id = row.id;
  const template = (async () => {
    if (campaign.template_id === null) return undefined;
    const [t] = await db
      .select({ status: templates.status, statusDetail: templates.statusDetail, category: templates.category, categoryChange: templates.categoryChange })
      .from(templates)
      .where(and(eq(templates.id, campaign.template_id), eq(templates.userId, userId)))
      .limit(1);
    return t;
  })();
  const [progress, held, t, replies, marketing, cost, approval, automation, splitTest] = await Promise.all([
    // Several numbers: each number's progress, and who waits on a number that takes no sends.
    numbers ? numberProgress(db, userId, id) : undefined,
    rowsOf<{ n: number }>(
      db,
      sql`select count(*)::int as n from campaign_recipients
          where campaign_id = ${id} and held_at is not null and status = 'sent'`,
    ),
    template,
    campaignReplies(db, userId, campaign, row.repliedCount),
    campaignMarketing(db, row),
    row.startedAt || row.audienceFrozenAt
      ? template.then((x) => campaignCost(db, userId, { id, templateCategory: x?.category ?? null, startedAt: row.startedAt, deliveredCount: row.deliveredCount }))
      : null,
    approvalView(db, row),
    automationView(db, row),
    splitTestView(db, userId, row),
  ]);
  if (progress) campaign.numbers = progress;
  campaign.held_count = Number(held[0]?.n ?? 0);
  if (t) campaign.template_risk = { status: t.status, status_detail: t.statusDetail, category: t.category, category_change: t.categoryChange ?? null };
  campaign.replies = replies;
  campaign.marketing_messages = marketing;
  campaign.actual_cost = cost;
  campaign.approval = approval;
  campaign.automation = automation;
  campaign.split_test = splitTest;
  return campaign;
}

/** Every number the campaign sends from: its numbers, else its one number. */
function withNumbers(c: Campaign, numbers: number[] | undefined): Campaign {
  c.whatsapp_account_ids = numbers ?? (c.whatsapp_account_id === null ? [] : [c.whatsapp_account_id]);
  return c;
}

/** Replies: recipients who replied, the rate over the messages Meta accepted, and taps per button. */
async function campaignReplies(db: Db, userId: number, c: Campaign, replied: number): Promise<NonNullable<Campaign['replies']>> {
  const taps = await rowsOf<{ button: string; taps: number | string; recipients: number | string }>(
    db,
    sql`select body as button, count(*)::int as taps, count(distinct recipient_id)::int as recipients
        from inbound_messages
        where campaign_id = ${c.id} and user_id = ${userId} and type in ('button', 'interactive') and body is not null
        group by body order by 2 desc, 1 limit 50`,
  );
  const accepted = c.messages_sent;
  return {
    replied,
    accepted,
    rate: accepted > 0 ? Math.min(1, replied / accepted) : 0,
    taps: taps.map((t) => ({ button: t.button, taps: Number(t.taps), recipients: Number(t.recipients) })),
  };
}

/** A campaign of this user, or 404: a foreign id is indistinguishable from a missing one. */
export async function loadCampaignRow(db: Db, userId: number, id: number): Promise<CampaignRow> {
  const [row] = await db
    .select()
    .from(campaigns)
    .where(and(eq(campaigns.id, id), eq(campaigns.userId, userId)))
    .limit(1);
  if (!row) throw notFound(CAMPAIGN_NOT_FOUND);
  return row;
}
