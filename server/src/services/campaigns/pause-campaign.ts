import { and, eq, sql } from 'drizzle-orm';
import type { Campaign } from '@masivo/contract/campaigns';
import type { AppContext } from '../../context';
import type { Db } from '../../db/client';
import { campaigns } from '../../db/schema/index';
import { conflict } from '../../lib/errors';
import { loadCampaignRow } from './campaign-queries';
import { campaignSignals } from './campaign-signals';
import { STATUS_LABEL, toCampaign } from './campaign-view';
import { rowsOf } from './sql';

/**
 * Spec §4: pause from sending. The in-process sender hears about it before this returns;
 * senders in other processes see it at their next poll (well under a second). Requests
 * already on the wire may still complete; claimed rows not yet sent go back to pending.
 */
export async function pauseCampaign(ctx: AppContext, userId: number, id: number): Promise<Campaign> {
  const [row] = await ctx.db
    .update(campaigns)
    .set({ status: 'paused', pauseReason: null, updatedAt: new Date() })
    .where(and(eq(campaigns.id, id), eq(campaigns.userId, userId), eq(campaigns.status, 'sending')))
    .returning();
  if (!row) {
    const current = await loadCampaignRow(ctx.db, userId, id);
    throw conflict(`No se puede pausar una campaña en estado ${STATUS_LABEL[current.status] ?? current.status}`);
  }
  campaignSignals(ctx).changed(id);
  return toCampaign(row);
}

/** The engine pauses sending campaigns by itself when Meta refuses for a systemic reason. */
export async function pauseWithReason(
  db: Db,
  target: { campaignIds: number[] } | { whatsappAccountId: number },
  reason: string,
): Promise<number[]> {
  const which =
    'campaignIds' in target
      ? sql`id in (select (jsonb_array_elements_text(${JSON.stringify(target.campaignIds)}::jsonb))::int)`
      : sql`whatsapp_account_id = ${target.whatsappAccountId}`;
  const rows = await rowsOf<{ id: number }>(
    db,
    sql`update campaigns set status = 'paused', pause_reason = ${reason}, updated_at = now()
        where status = 'sending' and ${which} returning id`,
  );
  return rows.map((r) => Number(r.id));
}
