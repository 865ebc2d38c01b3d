import { eq, sql } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { campaigns } from '../../db/schema/index';
import { AppError } from '../../lib/errors';
import { markStaleInFlightUnknown } from '../../services/campaigns/recipient-transitions';
import { retryOnConflict, rowsOf } from '../../services/campaigns/sql';
import { activateCampaign } from '../../services/campaigns/start-campaign';
import type { CampaignEngineOptions } from './options';

export const ACCOUNT_GONE = 'La cuenta de WhatsApp de la campaña ya no existe';

/**
 * The engine's periodic housekeeping, safe to run in every worker at once:
 * - scheduled campaigns whose time came are started (also the ones due while no process ran);
 * - in-flight rows past the grace period become unknown;
 * - sending campaigns with nothing left to settle are completed;
 * - sending campaigns whose WhatsApp account was deleted are paused with the reason.
 * Returns the ids of campaigns whose status it changed.
 */
export async function schedulerTick(ctx: AppContext, opts: CampaignEngineOptions): Promise<number[]> {
  const changed: number[] = [];
  changed.push(...(await startDueCampaigns(ctx)));
  await retryOnConflict(() => markStaleInFlightUnknown(ctx.db, opts.graceMs));
  const completed = await rowsOf<{ id: number }>(
    ctx.db,
    sql`update campaigns set status = 'completed', completed_at = now(), updated_at = now()
        where status = 'sending' and pending_count = 0 and audience_frozen_at is not null
        returning id`,
  );
  changed.push(...completed.map((r) => Number(r.id)));
  const orphaned = await rowsOf<{ id: number }>(
    ctx.db,
    sql`update campaigns set status = 'paused', pause_reason = ${ACCOUNT_GONE}, updated_at = now()
        where status = 'sending' and whatsapp_account_id is null
        returning id`,
  );
  changed.push(...orphaned.map((r) => Number(r.id)));
  return changed;
}

async function startDueCampaigns(ctx: AppContext): Promise<number[]> {
  const due = await ctx.db
    .select()
    .from(campaigns)
    .where(sql`${campaigns.status} = 'scheduled' and ${campaigns.scheduledAt} <= now()`)
    .orderBy(campaigns.scheduledAt)
    .limit(20);
  const started: number[] = [];
  for (const row of due) {
    try {
      await activateCampaign(ctx.db, row, ['scheduled']);
      started.push(row.id);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      // Another worker started it first: nothing to do. Otherwise the operator must see why.
      const [now] = await ctx.db.select({ status: campaigns.status }).from(campaigns).where(eq(campaigns.id, row.id));
      if (now?.status !== 'scheduled') continue;
      await ctx.db.execute(sql`update campaigns set status = 'paused', pause_reason = ${err.message}, updated_at = now()
        where id = ${row.id} and status = 'scheduled'`);
      started.push(row.id);
    }
  }
  return started;
}
