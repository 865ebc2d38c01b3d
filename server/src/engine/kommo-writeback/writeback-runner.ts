import { sql } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { rowsOf } from '../../db/sql';
import { KommoError } from '../../integrations/kommo/errors';
import type { KommoWriteApi } from '../../integrations/kommo/write-api';
import type { BackgroundWork } from '../background-work';
import { enqueueCompleted, enqueueLate } from './enqueue';
import { LeaseGone, runWritebackJob } from './writeback-job';

export interface WritebackRunnerOptions {
  api?: KommoWriteApi;
  /** How often completed campaigns and waiting write-backs are looked for. */
  pollMs?: number;
  /** A write-back whose lease is not renewed for this long is taken over by another process. */
  leaseMs?: number;
  /** How often a campaign in its late window is checked for new replies and opt-outs. */
  lateEveryMs?: number;
  /** First wait after Kommo failed the account; doubles per failure in a row, up to 15 minutes. */
  retryBaseMs?: number;
  /** Failures in a row after which the waiting items fail with the reason. */
  maxErrorStreak?: number;
  /** Write-backs at once in this process (each of a different Kommo account). */
  maxConcurrent?: number;
  batchSize?: number;
  afterAnswered?: (campaignId: number, stage: 'note' | 'tags' | 'lead') => Promise<void> | void;
}

interface Claimed {
  campaign_id: number;
  kommo_account_id: number;
  subdomain: string;
  access_token_enc: string;
  writeback_pipeline_id: string | null;
  writeback_status_id: string | null;
}

/** Items still to write (the partial index kommo_writeback_items_stage_idx answers it). */
const PENDING = sql`exists (select 1 from kommo_writeback_items i where i.campaign_id = w.campaign_id and i.stage not in ('done', 'failed'))`;

/**
 * The write-back worker: takes completed campaigns into the queue, adds late replies and
 * opt-outs, and writes each campaign's items to Kommo under a lease. One write-back per Kommo
 * account at a time (across processes), so with the account's sync it shares the account's
 * requests per second in turns: the client's per-account limiter serves waiting requests in
 * arrival order, and each of the two keeps one request waiting at a time.
 * Nothing here writes to campaigns or their recipients: a Kommo failure never touches a campaign.
 */
export function startKommoWritebackRunner(ctx: AppContext, opts: WritebackRunnerOptions = {}): BackgroundWork {
  const pollMs = opts.pollMs ?? 1000;
  const leaseMs = opts.leaseMs ?? 30_000;
  const lateEveryMs = opts.lateEveryMs ?? 30_000;
  const retryBaseMs = opts.retryBaseMs ?? 30_000;
  const maxErrorStreak = opts.maxErrorStreak ?? 8;
  const maxConcurrent = opts.maxConcurrent ?? 4;
  const api = opts.api ?? ctx.kommo.writeback;
  const owner = `${ctx.instanceId}-wb`;
  const stopper = new AbortController();
  const running = new Map<number, { job: Promise<void>; accountId: number }>();
  let timer: NodeJS.Timeout | undefined;
  let busy = false;

  async function claimOne(): Promise<Claimed | undefined> {
    const busyAccounts = [...running.values()].map((r) => r.accountId);
    const skip = busyAccounts.length ? sql`and w.kommo_account_id not in (${sql.join(busyAccounts.map((a) => sql`${a}`), sql`, `)})` : sql``;
    const [row] = await rowsOf<Claimed>(ctx.db, sql`
      with picked as (
        select w.campaign_id from kommo_writebacks w
        join kommo_accounts k on k.id = w.kommo_account_id and k.user_id = w.user_id
        where k.writeback_enabled and ${PENDING}
          and (w.lease_expires_at is null or w.lease_expires_at < now())
          and (w.retry_at is null or w.retry_at <= now())
          and not exists (select 1 from kommo_writebacks o where o.kommo_account_id = w.kommo_account_id
                          and o.campaign_id <> w.campaign_id and o.lease_expires_at > now())
          ${skip}
        order by w.updated_at, w.campaign_id
        limit 1 for update of w skip locked)
      update kommo_writebacks w set lease_owner = ${owner}, lease_expires_at = now() + make_interval(secs => ${leaseMs / 1000})
      from picked, kommo_accounts k
      where w.campaign_id = picked.campaign_id and k.id = w.kommo_account_id
      returning w.campaign_id, w.kommo_account_id, k.subdomain, k.access_token_enc, k.writeback_pipeline_id, k.writeback_status_id`);
    return row;
  }

  async function tick() {
    if (busy || stopper.signal.aborted) return;
    busy = true;
    try {
      await enqueueCompleted(ctx.db);
      await enqueueLate(ctx.db, lateEveryMs);
      while (!stopper.signal.aborted && running.size < maxConcurrent) {
        const claimed = await claimOne();
        if (!claimed) break;
        const job = run(claimed).finally(() => running.delete(claimed.campaign_id));
        running.set(claimed.campaign_id, { job, accountId: claimed.kommo_account_id });
      }
    } catch (err) {
      ctx.log.warn({ engine: 'kommo-writeback', err }, 'write-back sweep failed');
    } finally {
      busy = false;
    }
  }

  async function keepLease(campaignId: number): Promise<boolean> {
    const rows = await rowsOf(ctx.db, sql`
      update kommo_writebacks set lease_expires_at = now() + make_interval(secs => ${leaseMs / 1000})
      where campaign_id = ${campaignId} and lease_owner = ${owner} returning campaign_id`);
    return rows.length > 0;
  }

  async function run(c: Claimed) {
    const campaignId = c.campaign_id;
    try {
      let token: string;
      try {
        token = ctx.secrets.open(c.access_token_enc);
      } catch {
        throw new KommoError('unauthorized', 'El token guardado de la cuenta Kommo ya no se puede leer: vuelve a ingresarlo en la cuenta.');
      }
      await runWritebackJob(
        { db: ctx.db, api, keepLease: () => keepLease(campaignId), afterAnswered: opts.afterAnswered, batchSize: opts.batchSize },
        campaignId,
        {
          id: c.kommo_account_id,
          creds: { subdomain: c.subdomain, accessToken: token },
          pipelineId: c.writeback_pipeline_id === null ? null : Number(c.writeback_pipeline_id),
          statusId: c.writeback_status_id === null ? null : Number(c.writeback_status_id),
        },
        stopper.signal,
      );
      await finish(campaignId);
    } catch (err) {
      if (stopper.signal.aborted || err instanceof LeaseGone) return release(campaignId);
      if (err instanceof KommoError) return failed(campaignId, err.message);
      ctx.log.error({ engine: 'kommo-writeback', err }, `write-back of campaign ${campaignId} failed`);
      return failed(campaignId, 'Error interno al escribir en Kommo.');
    }
  }

  async function finish(campaignId: number) {
    await ctx.db.execute(sql`
      update kommo_writebacks w set lease_owner = null, lease_expires_at = null, last_error = null, error_streak = 0, retry_at = null,
             finished_at = case when ${PENDING} then null else now() end, updated_at = now()
      where campaign_id = ${campaignId} and lease_owner = ${owner}`);
  }

  async function release(campaignId: number) {
    try {
      await ctx.db.execute(sql`update kommo_writebacks set lease_owner = null, lease_expires_at = null where campaign_id = ${campaignId} and lease_owner = ${owner}`);
    } catch (err) {
      ctx.log.warn({ engine: 'kommo-writeback', err }, 'write-back lease release failed'); // it expires on its own
    }
  }

  /**
   * Kommo failed the account (or we did): the reason is shown on the campaign, and the write-back
   * is tried again later, waiting longer each time; after `maxErrorStreak` failures in a row the
   * waiting items fail with the reason. Items whose note may have been written are left for
   * the read-back of a later attempt, unless the write-back gives up.
   */
  async function failed(campaignId: number, message: string) {
    try {
      await ctx.db.transaction(async (tx) => {
        const [row] = await rowsOf<{ error_streak: number }>(tx, sql`
          update kommo_writebacks set error_streak = error_streak + 1, last_error = ${message}, updated_at = now(),
                 lease_owner = null, lease_expires_at = null
          where campaign_id = ${campaignId} and lease_owner = ${owner} returning error_streak`);
        if (!row) return;
        if (row.error_streak >= maxErrorStreak) {
          await tx.execute(sql`
            update kommo_writeback_items set stage = 'failed', error = ${message}, updated_at = now()
            where campaign_id = ${campaignId} and stage not in ('done', 'failed')`);
          await tx.execute(sql`update kommo_writebacks set retry_at = null, finished_at = now() where campaign_id = ${campaignId}`);
          return;
        }
        const waitMs = Math.min(retryBaseMs * 2 ** (row.error_streak - 1), 15 * 60_000);
        await tx.execute(sql`update kommo_writebacks set retry_at = now() + make_interval(secs => ${waitMs / 1000}) where campaign_id = ${campaignId}`);
      });
    } catch (err) {
      ctx.log.warn({ engine: 'kommo-writeback', err }, 'recording a write-back failure failed');
      await release(campaignId);
    }
  }

  const loop = () => {
    timer = setTimeout(async () => {
      await tick();
      if (!stopper.signal.aborted) loop();
    }, pollMs);
    timer.unref?.();
  };
  void tick();
  loop();

  return {
    async stop() {
      clearTimeout(timer);
      stopper.abort(new Error('stopping'));
      await Promise.allSettled([...running.values()].map((r) => r.job));
    },
  };
}
