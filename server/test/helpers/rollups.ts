import type { Db } from '../../src/db/client';
import { foldChangedCampaigns, type FoldPassResult } from '../../src/services/campaigns/campaign-rollups';

/**
 * One pass of the `campaign-rollups` job, as the worker runs it: tests that change recipients
 * between two reads of the charts fold before reading again (the charts read the rollups).
 */
export function foldRollups(db: Db): Promise<FoldPassResult> {
  return foldChangedCampaigns(db);
}
