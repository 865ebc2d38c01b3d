import type { AppContext } from '../../context';
import { onAutomationSwitched } from '../automations/automation-hooks';
import { loadCampaignRow } from './campaign-queries';
import { deleteIfAllowed } from './campaign-transitions';

/** Spec §4: delete from draft, paused, completed or cancelled; its recipients go with it. */
export async function deleteCampaign(ctx: AppContext, userId: number, id: number): Promise<void> {
  const row = await loadCampaignRow(ctx.db, userId, id);
  await deleteIfAllowed(ctx.db, userId, id);
  ctx.signals.campaignChanged(id);
  // A deleted automatic campaign records nothing more: the inbound side may drop its subscription.
  if (row.audienceKind === 'automatic') await onAutomationSwitched(ctx, userId, row.kommoAccountId);
}
