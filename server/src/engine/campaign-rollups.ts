import type { AppContext } from '../context';
import type { PeriodicDefinition } from '../jobs/index';
import { ROLLUP_JOB } from '../db/rollup-mark';
import { foldChangedCampaigns } from '../services/campaigns/campaign-rollups';

/** How long after a pass ends the next one starts; the charts' delay is about this plus a pass. */
export const ROLLUP_EVERY_MS = 5_000;

/**
 * The charts' rollups (services/campaigns/campaign-rollups.ts), folded off the send path: every
 * few seconds, once across processes (the job runner's `job_schedules` row), each campaign whose
 * recipients moved since its last fold is recounted in its own transaction. A stopped or failed
 * pass leaves every rollup as its last fold committed it; the next pass folds what is still due.
 */
export function campaignRollups(ctx: AppContext, everyMs = ROLLUP_EVERY_MS): PeriodicDefinition {
  return {
    name: ROLLUP_JOB,
    everyMs,
    run: async (signal) => {
      const pass = await foldChangedCampaigns(ctx.db, {
        signal,
        onFolded: (result, seconds) => ctx.metrics.rollupFolded(result, seconds),
        onError: (campaignId, err) => ctx.log.warn({ err, campaignId }, 'campaign rollups: fold failed, retried at the next pass'),
      });
      if (pass.folded) ctx.log.debug({ folded: pass.folded, ms: pass.ms }, 'campaign rollups folded');
    },
  };
}
