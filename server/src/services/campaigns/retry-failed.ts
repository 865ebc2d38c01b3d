import { sql } from 'drizzle-orm';
import type { Campaign, CampaignStatus } from '@masivo/contract/campaigns';
import type { AppContext } from '../../context';
import { conflict } from '../../lib/errors';
import { getCampaign, loadCampaignRow } from './campaign-queries';
import { campaignSignals } from './campaign-signals';
import { STATUS_LABEL } from './campaign-view';
import { requeueRecipients } from './recipient-transitions';

const RETRYABLE_FROM: readonly CampaignStatus[] = ['sending', 'paused', 'completed'];

export const NO_WEBHOOKS =
  'No se pueden reintentar los desconocidos sin los webhooks de WhatsApp configurados: muchos de esos mensajes probablemente ya llegaron.';

/**
 * 'Reintentar fallidos': failed recipients go back to pending (131049 not before 24 h, as
 * Meta asks). Recipients already sent, delivered or read are never touched. A completed
 * campaign sends again; a paused one waits for 'Iniciar'.
 */
export function retryFailed(ctx: AppContext, userId: number, id: number): Promise<Campaign> {
  return requeue(ctx, userId, id, 'failed');
}

/**
 * 'Reintentar desconocidos': recipients whose request's outcome was lost. Some of them may
 * have the message already, so the caller confirmed it explicitly; and without webhooks
 * (nothing could have settled them) it is refused outright.
 */
export function retryUnknown(ctx: AppContext, userId: number, id: number): Promise<Campaign> {
  if (!ctx.config.WHATSAPP_APP_SECRET) throw conflict(NO_WEBHOOKS);
  return requeue(ctx, userId, id, 'unknown');
}

async function requeue(ctx: AppContext, userId: number, id: number, status: 'failed' | 'unknown'): Promise<Campaign> {
  const row = await loadCampaignRow(ctx.db, userId, id);
  if (!RETRYABLE_FROM.includes(row.status)) {
    throw conflict(`No se pueden reintentar envíos de una campaña en estado ${STATUS_LABEL[row.status] ?? row.status}`);
  }
  await ctx.db.transaction(async (tx) => {
    await tx.execute(sql`select id from campaigns where id = ${id} for update`);
    const requeued = await requeueRecipients(tx, id, status);
    if (requeued > 0) {
      await tx.execute(sql`update campaigns set status = 'sending', completed_at = null, updated_at = now()
        where id = ${id} and status = 'completed'`);
    }
  });
  campaignSignals(ctx).changed(id);
  return getCampaign(ctx.db, userId, id);
}
