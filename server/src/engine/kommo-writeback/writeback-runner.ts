import { sql } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { rowsOf } from '../../db/sql';
import { KommoError } from '../../integrations/kommo/errors';
import type { KommoWriteApi } from '../../integrations/kommo/write-api';
import { JobRunner, type JobStore, type RetrySchedule } from '../../jobs/index';
import type { BackgroundWork } from '../background-work';
import { enqueueAutomatic, enqueueCompleted, enqueueLate } from './enqueue';
import { runWritebackJob } from './writeback-job';

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
  error_streak: number;
  subdomain: string;
  access_token_enc: string;
  writeback_pipeline_id: string | null;
  writeback_status_id: string | null;
}

/** Items still to write (the partial index kommo_writeback_items_stage_idx answers it). */
const PENDING = sql`exists (select 1 from kommo_writeback_items i where i.campaign_id = w.campaign_id and i.stage not in ('done', 'failed'))`;

export const KOMMO_WRITEBACK_QUEUE = 'kommo-writeback';
export const KOMMO_WRITEBACK_INTAKE = 'kommo-writeback-intake';

/**
 * The write-back as a queue of the job runner, plus its intake as a periodic job. The intake
 * takes completed campaigns into the queue and adds late replies and opt-outs; the queue's jobs
 * are the `kommo_writebacks` rows, each written to Kommo under a lease. One write-back per Kommo
 * account at a time (across processes: claims are serialised by an advisory lock, so the check
 * for a live lease on the same account sees every earlier claim), so with the account's sync it
 * shares the account's requests per second in turns: the client's per-account limiter serves
 * waiting requests in arrival order, and each of the two keeps one request waiting at a time.
 * Nothing here writes to campaigns or their recipients: a Kommo failure never touches a campaign.
 */
export function registerKommoWriteback(runner: JobRunner, ctx: AppContext, opts: WritebackRunnerOptions = {}): JobRunner {
  const pollMs = opts.pollMs ?? 1000;
  const leaseMs = opts.leaseMs ?? 30_000;
  const lateEveryMs = opts.lateEveryMs ?? 30_000;
  const retry: RetrySchedule = { baseMs: opts.retryBaseMs ?? 30_000, maxMs: 15 * 60_000, maxAttempts: opts.maxErrorStreak ?? 8 };
  const api = opts.api ?? ctx.kommo.writeback;
  const suffix = '-wb';

  const store: JobStore<Claimed> = {
    async claim({ owner, leaseMs: ms, running }) {
      const busyAccounts = running.map((r) => r.payload.kommo_account_id);
      const skip = busyAccounts.length ? sql`and w.kommo_account_id not in (${sql.join(busyAccounts.map((a) => sql`${a}`), sql`, `)})` : sql``;
      const row = await ctx.db.transaction(async (tx) => {
        await tx.execute(sql`select pg_advisory_xact_lock(hashtext('masivo-jobs'), hashtext(${KOMMO_WRITEBACK_QUEUE}))`);
        const [claimed] = await rowsOf<Claimed>(tx, sql`
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
          update kommo_writebacks w set lease_owner = ${owner + suffix}, lease_expires_at = now() + make_interval(secs => ${ms / 1000})
          from picked, kommo_accounts k
          where w.campaign_id = picked.campaign_id and k.id = w.kommo_account_id
          returning w.campaign_id, w.kommo_account_id, w.error_streak, k.subdomain, k.access_token_enc, k.writeback_pipeline_id, k.writeback_status_id`);
        return claimed;
      });
      if (!row) return undefined;
      return { id: String(row.campaign_id), key: String(row.kommo_account_id), payload: row, attempts: row.error_streak };
    },
    renew: (job, owner, ms) => keepLease(job.payload.campaign_id, owner + suffix, ms),
    async complete(job, owner) {
      await ctx.db.execute(sql`
        update kommo_writebacks w set lease_owner = null, lease_expires_at = null, last_error = null, error_streak = 0, retry_at = null,
               finished_at = case when ${PENDING} then null else now() end, updated_at = now()
        where campaign_id = ${job.payload.campaign_id} and lease_owner = ${owner + suffix}`);
    },
    fail: (job, owner, err, retryAt) => failed(job.payload.campaign_id, owner + suffix, err, retryAt),
    async release(job, owner) {
      await ctx.db.execute(sql`update kommo_writebacks set lease_owner = null, lease_expires_at = null
                               where campaign_id = ${job.payload.campaign_id} and lease_owner = ${owner + suffix}`);
    },
  };

  async function keepLease(campaignId: number, owner: string, ms: number): Promise<boolean> {
    const rows = await rowsOf(ctx.db, sql`
      update kommo_writebacks set lease_expires_at = now() + make_interval(secs => ${ms / 1000})
      where campaign_id = ${campaignId} and lease_owner = ${owner} returning campaign_id`);
    return rows.length > 0;
  }

  /**
   * Kommo failed the account (or we did): the reason is shown on the campaign, and the write-back
   * is tried again at `retryAt` (the queue's schedule: 30 s doubling up to 15 minutes); when the
   * schedule gives up (`maxErrorStreak` failures in a row) the waiting items fail with the reason.
   * Items whose note may have been written are left for the read-back of a later attempt, unless
   * the write-back gives up.
   */
  async function failed(campaignId: number, owner: string, err: unknown, retryAt: Date | null) {
    let message: string;
    if (err instanceof KommoError) message = err.message;
    else {
      ctx.log.error({ engine: 'kommo-writeback', err }, `write-back of campaign ${campaignId} failed`);
      message = 'Error interno al escribir en Kommo.';
    }
    await ctx.db.transaction(async (tx) => {
      const [row] = await rowsOf<{ campaign_id: number }>(tx, sql`
        update kommo_writebacks set error_streak = error_streak + 1, last_error = ${message}, updated_at = now(),
               lease_owner = null, lease_expires_at = null, retry_at = ${retryAt?.toISOString() ?? null}::timestamptz,
               finished_at = case when ${retryAt === null} then now() end
        where campaign_id = ${campaignId} and lease_owner = ${owner} returning campaign_id`);
      if (!row || retryAt !== null) return;
      await tx.execute(sql`
        update kommo_writeback_items set stage = 'failed', error = ${message}, updated_at = now()
        where campaign_id = ${campaignId} and stage not in ('done', 'failed')`);
    });
  }

  runner.queue<Claimed>({
    name: KOMMO_WRITEBACK_QUEUE,
    store,
    leaseMs,
    pollMs,
    maxConcurrent: opts.maxConcurrent ?? 4,
    retry,
    async run(job, signal, owner) {
      const c = job.payload;
      let token: string;
      try {
        token = ctx.secrets.open(c.access_token_enc);
      } catch {
        throw new KommoError('unauthorized', 'El token guardado de la cuenta Kommo ya no se puede leer: vuelve a ingresarlo en la cuenta.');
      }
      await runWritebackJob(
        {
          db: ctx.db,
          api,
          keepLease: () => keepLease(c.campaign_id, owner + suffix, leaseMs),
          afterAnswered: opts.afterAnswered,
          batchSize: opts.batchSize,
        },
        c.campaign_id,
        {
          id: c.kommo_account_id,
          creds: { subdomain: c.subdomain, accessToken: token },
          pipelineId: c.writeback_pipeline_id === null ? null : Number(c.writeback_pipeline_id),
          statusId: c.writeback_status_id === null ? null : Number(c.writeback_status_id),
        },
        signal,
      );
    },
  });

  // Safe in every process at once, but once per period is enough.
  runner.periodic({
    name: KOMMO_WRITEBACK_INTAKE,
    everyMs: pollMs,
    async run() {
      await enqueueCompleted(ctx.db);
      await enqueueAutomatic(ctx.db);
      await enqueueLate(ctx.db, lateEveryMs);
      runner.wake(KOMMO_WRITEBACK_QUEUE);
    },
  });
  return runner;
}

/** The write-back alone on a runner of its own (tests and benches; the worker runs every queue on one runner). */
export function startKommoWritebackRunner(ctx: AppContext, opts: WritebackRunnerOptions = {}): BackgroundWork {
  const runner = registerKommoWriteback(new JobRunner({ db: ctx.db, log: ctx.log, owner: ctx.instanceId }), ctx, opts);
  const started = runner.start();
  return {
    async stop() {
      await started.catch(() => undefined);
      await runner.stop();
    },
  };
}
