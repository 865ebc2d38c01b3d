import { sql } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { campaigns } from '../../db/schema/index';
import { AppError } from '../../lib/errors';
import { markStaleInFlightUnknown } from '../../services/campaigns/recipient-transitions';
import { pgCode, retryOnConflict } from '../../db/sql';
import { recordActivity, SYSTEM } from '../../services/activity/activity-log';
import {
  activate,
  completeFinished,
  pauseFailedStart,
  pauseOrphaned,
} from '../../services/campaigns/campaign-transitions';
import type { CampaignEngineOptions } from './options';
import { pruneReach } from './portfolio-budget';
import { wakeDueDeferred } from '../../services/campaigns/wake-deferred';
import { refreshHolidays } from '../../services/campaigns/recipient-zones-freeze';
import { expireApprovals } from '../../services/campaigns/campaign-approvals';
import { decideDueSplitTests } from '../../services/campaigns/split-test-decision';

export const START_FAILED = 'No se pudo iniciar la campaña programada por un error interno. Revisa sus filtros y vuelve a iniciarla.';

/** Serialization failure, deadlock, lock not available: the same start may well succeed next time. */
const TRANSIENT = new Set(['40001', '40P01', '55P03']);
const START_ATTEMPTS = 3;

type Log = (msg: string, err?: unknown) => void;

/**
 * The engine's periodic housekeeping, safe to run in every worker at once:
 * - approval requests nobody decided within 72 h expire (their campaigns return to draft);
 * - scheduled campaigns whose time came are started (also the ones due while no process ran);
 * - in-flight rows past the grace period become unknown;
 * - split tests whose wait is over are decided (the rest gets the winner, or is stopped);
 * - sending campaigns with nothing left to settle are completed;
 * - sending campaigns whose WhatsApp account was deleted are paused with the reason.
 * Every tenant's campaigns share this loop, so each step runs on its own, and one
 * campaign that cannot start is paused with a reason instead of failing the others.
 * Returns the ids of campaigns whose status it changed.
 */
export async function schedulerTick(ctx: AppContext, opts: CampaignEngineOptions, log: Log = () => undefined): Promise<number[]> {
  const changed: number[] = [];
  const step = async (name: string, work: () => Promise<number[] | number>) => {
    try {
      const ids = await work();
      if (Array.isArray(ids)) changed.push(...ids);
    } catch (err) {
      log(`scheduler step "${name}" failed`, err);
    }
  };
  await step('expire approval requests', () => expireApprovals(ctx.db));
  await step('start due campaigns', () => startDueCampaigns(ctx, log));
  await step('mark stale in-flight unknown', () => retryOnConflict(() => markStaleInFlightUnknown(ctx.db, opts.graceMs)));
  // Before the completion: a split test stopped without a winner completes in the same tick.
  await step('decide split tests', () => decideDueSplitTests(ctx.db));
  await step('complete finished campaigns', () => completeFinished(ctx.db));
  await step('pause orphaned campaigns', () => pauseOrphaned(ctx.db));
  await step('wake due deferred recipients', () => wakeDueDeferred(ctx.db));
  await step('prune portfolio reach', () => pruneReach(ctx.db));
  await step('refresh public holidays', () => refreshHolidays(ctx.db));
  return changed;
}

async function startDueCampaigns(ctx: AppContext, log: Log): Promise<number[]> {
  const due = await ctx.db
    .select()
    .from(campaigns)
    .where(sql`${campaigns.status} = 'scheduled' and ${campaigns.scheduledAt} <= now()`)
    .orderBy(campaigns.scheduledAt)
    .limit(20);
  const started: number[] = [];
  for (const row of due) {
    try {
      if (await startOne(ctx, row, log)) started.push(row.id);
    } catch (err) {
      log(`campaign ${row.id}: could not settle its scheduled start`, err);
    }
  }
  return started;
}

/** Starts one due campaign, or pauses it with the reason; false when another worker got there first. */
async function startOne(ctx: AppContext, row: typeof campaigns.$inferSelect, log: Log): Promise<boolean> {
  let reason: string;
  for (let attempt = 1; ; attempt++) {
    try {
      await activate(ctx.db, row, ['scheduled']);
      await recordActivity(ctx.db, SYSTEM(row.userId), {
        action: 'campaign.scheduled_start',
        target: { type: 'campaign', id: row.id, name: row.name },
        changes: { before: { status: 'scheduled' } },
      }).catch((err: unknown) => log(`campaign ${row.id}: activity entry not stored`, err));
      return true;
    } catch (err) {
      if (err instanceof AppError) {
        reason = err.message;
        break;
      }
      if (TRANSIENT.has(pgCode(err) ?? '') && attempt < START_ATTEMPTS) {
        await new Promise((r) => setTimeout(r, 20 * attempt + Math.random() * 30));
        continue;
      }
      // Not the operator's doing (a query the database refused): paused, so the next
      // tick does not trip on it again and the owner sees that it needs attention.
      // Only the SQLSTATE: driver messages may carry the query's parameters (contact data).
      log(`campaign ${row.id}: scheduled start failed (${pgCode(err) ?? (err as Error)?.name ?? 'error'}); paused`);
      reason = START_FAILED;
      break;
    }
  }
  // Another worker started it first: nothing to do. Otherwise the operator must see why.
  return pauseFailedStart(ctx.db, row.id, reason);
}
