import type { Db } from '../../src/db/client';
import { foldChangedCampaigns, type FoldPassResult } from '../../src/services/campaigns/campaign-rollups';

/**
 * One pass of the `campaign-rollups` job, as the worker runs it but without the spacing of a
 * campaign's folds (FOLD_GAP): tests that change recipients between two reads of the charts fold
 * before reading again (the charts read the rollups), and every changed campaign is folded.
 */
export function foldRollups(db: Db): Promise<FoldPassResult> {
  return foldChangedCampaigns(db, { gap: 0 });
}
