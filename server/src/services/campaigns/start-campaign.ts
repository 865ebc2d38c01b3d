import { CAN_START, type Campaign } from '@masivo/contract/campaigns';
import type { AppContext } from '../../context';
import { getCampaign, loadCampaignRow } from './campaign-queries';
import { activate } from './campaign-transitions';

/** Spec §4: start from draft, scheduled or paused. The first start freezes the audience. */
export async function startCampaign(ctx: AppContext, userId: number, id: number): Promise<Campaign> {
  const row = await loadCampaignRow(ctx.db, userId, id);
  await activate(ctx.db, row, CAN_START);
  ctx.signals.campaignChanged(id);
  return getCampaign(ctx.db, userId, id);
}
