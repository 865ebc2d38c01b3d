import { sql } from 'drizzle-orm';
import { CAN_RETRY, type Campaign } from '@masivo/contract/campaigns';
import type { AppContext } from '../../context';
import { conflict } from '../../lib/errors';
import { getCampaign, loadCampaignRow } from './campaign-queries';
import { refuse, reopenAfterRetry } from './campaign-transitions';
import { requeueRecipients } from './recipient-transitions';

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
  if (!CAN_RETRY.includes(row.status)) throw refuse('retry', row.status);
  await ctx.db.transaction(async (tx) => {
    await tx.execute(sql`select id from campaigns where id = ${id} for update`);
    const requeued = await requeueRecipients(tx, id, status);
    if (requeued > 0) await reopenAfterRetry(tx, id);
  });
  ctx.signals.campaignChanged(id);
  return getCampaign(ctx.db, userId, id);
}
