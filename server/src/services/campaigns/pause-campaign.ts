import type { Campaign } from '@masivo/contract/campaigns';
import type { AppContext } from '../../context';
import { cancelCampaignRow, pauseByOperator } from './campaign-transitions';
import { campaignDetail } from './campaign-queries';
import { onAutomationSwitched } from '../automations/automation-hooks';

/**
 * Spec §4: pause from sending. The in-process sender hears about it before this returns;
 * senders in other processes see it at their next poll (well under a second). Requests
 * already on the wire may still complete; claimed rows not yet sent go back to pending.
 */
export async function pauseCampaign(ctx: AppContext, userId: number, id: number, actorUserId: number | null = null): Promise<Campaign> {
  const row = await pauseByOperator(ctx.db, userId, id, actorUserId);
  ctx.signals.campaignChanged(id);
  if (row.audienceKind === 'automatic') await onAutomationSwitched(ctx, userId, row.kommoAccountId);
  return campaignDetail(ctx.db, userId, row);
}

/**
 * Cancel: from any status but completed or cancelled. Senders drop the campaign as on a pause
 * (claimed rows not yet sent go back to pending and stay unsent); a cancelled campaign is never
 * started again.
 */
export async function cancelCampaign(ctx: AppContext, orgId: number, id: number): Promise<Campaign> {
  const row = await cancelCampaignRow(ctx.db, orgId, id);
  ctx.signals.campaignChanged(id);
  if (row.audienceKind === 'automatic') await onAutomationSwitched(ctx, orgId, row.kommoAccountId);
  return campaignDetail(ctx.db, orgId, row);
}
