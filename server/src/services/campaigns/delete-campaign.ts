import { and, eq, inArray } from 'drizzle-orm';
import { CAN_DELETE } from '@masivo/contract/campaigns';
import type { AppContext } from '../../context';
import { campaigns } from '../../db/schema/index';
import { conflict } from '../../lib/errors';
import { loadCampaignRow } from './campaign-queries';
import { campaignSignals } from './campaign-signals';
import { STATUS_LABEL } from './campaign-view';

/** Spec §4: delete from draft, paused, completed or cancelled; its recipients go with it. */
export async function deleteCampaign(ctx: AppContext, userId: number, id: number): Promise<void> {
  const deleted = await ctx.db
    .delete(campaigns)
    .where(and(eq(campaigns.id, id), eq(campaigns.userId, userId), inArray(campaigns.status, [...CAN_DELETE])))
    .returning({ id: campaigns.id });
  if (!deleted.length) {
    const current = await loadCampaignRow(ctx.db, userId, id);
    throw conflict(`No se puede eliminar una campaña en estado ${STATUS_LABEL[current.status] ?? current.status}`);
  }
  campaignSignals(ctx).changed(id);
}
