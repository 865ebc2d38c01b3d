import type { AppContext } from '../../context';
import { deleteIfAllowed } from './campaign-transitions';

/** Spec §4: delete from draft, paused, completed or cancelled; its recipients go with it. */
export async function deleteCampaign(ctx: AppContext, userId: number, id: number): Promise<void> {
  await deleteIfAllowed(ctx.db, userId, id);
  ctx.signals.campaignChanged(id);
}
