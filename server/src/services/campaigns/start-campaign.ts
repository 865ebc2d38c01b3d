import { CAN_START, type Campaign } from '@masivo/contract/campaigns';
import type { AppContext } from '../../context';
import type { ActivityActor } from '../activity/activity-log';
import { gateApproval } from './campaign-approvals';
import { getCampaign, loadCampaignRow } from './campaign-queries';
import { activate, assertCanActivate } from './campaign-transitions';
import { onAutomationSwitched } from '../automations/automation-hooks';

/**
 * Spec §4: start from draft, scheduled or paused. The first start freezes the audience. With an
 * `actor` (the operator's «Iniciar») the two-person approval gate runs first: when the start
 * needs another member's approval the campaign goes to pending_approval and sends nothing.
 * Without one (the engine's own callers) it starts at once.
 */
export async function startCampaign(ctx: AppContext, userId: number, id: number, actor?: ActivityActor): Promise<Campaign> {
  const row = await loadCampaignRow(ctx.db, userId, id);
  // A request for something that could not start anyway is refused now, not after the approval.
  if (actor) await assertCanActivate(ctx.db, row, CAN_START);
  if (!actor || !(await gateApproval(ctx, actor, row, 'start'))) await activate(ctx.db, row, CAN_START);
  ctx.signals.campaignChanged(id);
  const started = await getCampaign(ctx.db, userId, id);
  if (row.audienceKind === 'automatic' && started.status === 'sending') await onAutomationSwitched(ctx, userId, row.kommoAccountId);
  return started;
}
