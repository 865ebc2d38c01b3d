import type { Campaign } from '@masivo/contract/campaigns';
import type { AppContext } from '../../context';
import { pauseByOperator } from './campaign-transitions';
import { campaignDetail } from './campaign-queries';

/**
 * Spec §4: pause from sending. The in-process sender hears about it before this returns;
 * senders in other processes see it at their next poll (well under a second). Requests
 * already on the wire may still complete; claimed rows not yet sent go back to pending.
 */
export async function pauseCampaign(ctx: AppContext, userId: number, id: number, actorUserId: number | null = null): Promise<Campaign> {
  const row = await pauseByOperator(ctx.db, userId, id, actorUserId);
  ctx.signals.campaignChanged(id);
  return campaignDetail(ctx.db, userId, row);
}
