import { eq, sql } from 'drizzle-orm';
import { CAN_START, type Campaign, type CampaignStatus } from '@masivo/contract/campaigns';
import type { AppContext } from '../../context';
import type { Db } from '../../db/client';
import { campaigns, whatsappAccounts } from '../../db/schema/index';
import { conflict } from '../../lib/errors';
import { assertCampaignTemplate } from './campaign-references';
import { getCampaign, loadCampaignRow } from './campaign-queries';
import { campaignSignals } from './campaign-signals';
import { STATUS_LABEL, type CampaignRow } from './campaign-view';
import { freezeAudience } from './freeze-audience';

/** Spec §4: start from draft, scheduled or paused. The first start freezes the audience. */
export async function startCampaign(ctx: AppContext, userId: number, id: number): Promise<Campaign> {
  const row = await loadCampaignRow(ctx.db, userId, id);
  await activateCampaign(ctx.db, row, CAN_START);
  campaignSignals(ctx).changed(id);
  return getCampaign(ctx.db, userId, id);
}

/**
 * Checks that the campaign can send now, then, in one transaction holding the campaign row:
 * freezes the audience if this is the first start and moves it to sending (or straight to
 * completed when nobody is left to send to). Shared by the API and the scheduler.
 */
export async function activateCampaign(db: Db, row: CampaignRow, allowedFrom: readonly CampaignStatus[]): Promise<void> {
  const refuse = (status: CampaignStatus) => conflict(`No se puede iniciar una campaña en estado ${STATUS_LABEL[status] ?? status}`);
  if (!allowedFrom.includes(row.status)) throw refuse(row.status);
  if (!row.whatsappAccountId) throw conflict('La campaña no tiene una cuenta de WhatsApp');
  if (!row.templateId) throw conflict('La campaña no tiene una plantilla');
  const [account] = await db
    .select({ isActive: whatsappAccounts.isActive })
    .from(whatsappAccounts)
    .where(eq(whatsappAccounts.id, row.whatsappAccountId))
    .limit(1);
  if (!account) throw conflict('La campaña no tiene una cuenta de WhatsApp');
  if (!account.isActive) throw conflict('La cuenta de WhatsApp está desactivada');
  await assertCampaignTemplate(db, row.userId, row.templateId, row.whatsappAccountId);
  if (!row.audienceFrozenAt && !row.kommoAccountId) throw conflict('La campaña no tiene una cuenta Kommo');

  await db.transaction(async (tx) => {
    // The audience is frozen from this locked version: an edit committed since `row` was
    // read (filters, Kommo account) is what the operator saved last.
    const [locked] = await tx.select().from(campaigns).where(eq(campaigns.id, row.id)).for('update');
    if (!locked) throw conflict('La campaña ya no existe');
    if (!allowedFrom.includes(locked.status)) throw refuse(locked.status);
    if (!locked.audienceFrozenAt) {
      if (!locked.kommoAccountId) throw conflict('La campaña no tiene una cuenta Kommo');
      await freezeAudience(tx, { id: locked.id, userId: locked.userId, kommoAccountId: locked.kommoAccountId, filters: locked.filters });
    }
    await tx.execute(sql`update campaigns set
        status = case when pending_count = 0 then 'completed' else 'sending' end,
        completed_at = case when pending_count = 0 then now() end,
        started_at = coalesce(started_at, now()),
        pause_reason = null,
        updated_at = now()
      where id = ${row.id}`);
  });
}
