import { and, eq, sql } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { rowsOf } from '../../db/sql';
import { kommoAccounts } from '../../db/schema/kommo';
import type { KommoClient } from '../../integrations/kommo/client';
import { KommoError } from '../../integrations/kommo/errors';
import { JobRunner, type JobStore, type QueueDefinition } from '../../jobs/index';
import type { BackgroundWork } from '../background-work';
import { SyncStopError } from './sync-errors';
import { runSyncJob } from './sync-job';
import { RECHECK_FAILED, runPhoneRecheck } from './phone-recheck';
import { parseSyncState } from './sync-state';

export interface SyncRunnerOptions {
  client?: KommoClient;
  /** How often waiting or orphaned syncs are looked for. */
  pollMs?: number;
  /** A sync whose lease is not renewed for this long is taken over by another process. */
  leaseMs?: number;
  /** Accounts synced at once by this process (each has its own Kommo rate limit). */
  maxConcurrent?: number;
  /** Of those, at most this many for one user: one tenant's stuck syncs cannot hold every slot. */
  maxPerUser?: number;
  /** Cap on pages one sync reads. */
  maxPages?: number;
}

type AccountRow = typeof kommoAccounts.$inferSelect;

export const KOMMO_SYNC_QUEUE = 'kommo-sync';

/**
 * The Kommo sync as a queue of the job runner. Its jobs are the accounts themselves: an account
 * with sync_status 'syncing' and no live lease (`sync_lease_*`) is waiting, so a sync asked for
 * through the API, or left by a dead process, needs no other row. The lease makes one account
 * sync once at a time; a sync left by a dead process resumes from its saved cursor once the
 * lease expires; every page's write is fenced by the lease (`sync-job.ts`).
 */
export function kommoSyncQueue(ctx: AppContext, opts: SyncRunnerOptions = {}): QueueDefinition<AccountRow> {
  const leaseMs = opts.leaseMs ?? 30_000;
  const maxConcurrent = opts.maxConcurrent ?? 4;
  const maxPerUser = Math.max(1, Math.min(opts.maxPerUser ?? Math.ceil(maxConcurrent / 2), maxConcurrent));
  const client = opts.client ?? ctx.kommo.sync;

  const store: JobStore<AccountRow> = {
    async claim({ owner, running }) {
      // Users holding their share of this process's slots: their waiting syncs wait for a free one of theirs.
      const perUser = new Map<number, number>();
      for (const r of running) perUser.set(r.payload.userId, (perUser.get(r.payload.userId) ?? 0) + 1);
      const full = [...perUser].filter(([, n]) => n >= maxPerUser).map(([u]) => u);
      const skipUsers = full.length > 0 ? sql`and user_id not in (${sql.join(full.map((u) => sql`${u}`), sql`, `)})` : sql``;
      const [claimed] = await rowsOf<{ id: number }>(ctx.db, sql`
        update kommo_accounts set sync_lease_owner = ${owner},
               sync_lease_expires_at = now() + make_interval(secs => ${leaseMs / 1000})
        where id = (
          select id from kommo_accounts
          where sync_status = 'syncing' and (sync_lease_expires_at is null or sync_lease_expires_at < now()) ${skipUsers}
          order by updated_at limit 1 for update skip locked)
        returning id`);
      if (claimed?.id === undefined) return undefined;
      const [row] = await ctx.db.select().from(kommoAccounts).where(eq(kommoAccounts.id, claimed.id));
      if (!row) return undefined;
      return { id: String(row.id), key: String(row.id), payload: row, attempts: 0 };
    },
    async renew(job, owner) {
      const rows = await ctx.db
        .update(kommoAccounts)
        .set({ syncLeaseExpiresAt: sql`now() + make_interval(secs => ${leaseMs / 1000})` })
        .where(and(eq(kommoAccounts.id, job.payload.id), eq(kommoAccounts.syncLeaseOwner, owner), eq(kommoAccounts.syncStatus, 'syncing')))
        .returning({ id: kommoAccounts.id });
      return rows.length > 0;
    },
    async complete(job) {
      // The job's last write (fenced by the lease) already marked the account synced.
      if (!isRecheck(job.payload)) ctx.metrics.syncEnded('ok');
    },
    async fail(job, owner, err) {
      const recheck = isRecheck(job.payload);
      if (recheck) ctx.log.error({ engine: 'kommo-sync', err }, `phone re-check of Kommo account ${job.payload.id} failed`);
      // Kommo's refusals are the operator's to read on the account; anything else is ours to read here.
      else if (!(err instanceof KommoError || err instanceof SyncStopError)) ctx.log.error({ engine: 'kommo-sync', err }, `sync of Kommo account ${job.payload.id} failed`);
      if (!recheck) ctx.metrics.syncEnded('error');
      await ctx.db
        .update(kommoAccounts)
        .set({
          syncStatus: 'error',
          syncErrorMessage: recheck ? RECHECK_FAILED : failureMessage(err),
          syncState: null,
          syncLeaseOwner: null,
          syncLeaseExpiresAt: null,
          updatedAt: new Date(),
        })
        .where(and(eq(kommoAccounts.id, job.payload.id), eq(kommoAccounts.syncLeaseOwner, owner)));
    },
    /** Stopping is not failing: the sync stays 'syncing' and the next process resumes it at once. */
    async release(job, owner) {
      await ctx.db
        .update(kommoAccounts)
        .set({ syncLeaseOwner: null, syncLeaseExpiresAt: null })
        .where(and(eq(kommoAccounts.id, job.payload.id), eq(kommoAccounts.syncLeaseOwner, owner)));
    },
  };

  return {
    name: KOMMO_SYNC_QUEUE,
    store,
    leaseMs,
    maxConcurrent,
    pollMs: opts.pollMs ?? 1000,
    // A failed sync is shown on the account and started again by the operator: no automatic retry.
    // A new default country re-reads the stored phones: a job of this queue, so it never runs
    // beside a sync of the same account, and resumes like one.
    run: (job, signal, owner) =>
      isRecheck(job.payload)
        ? runPhoneRecheck({ db: ctx.db, owner, leaseMs }, job.payload, signal)
        : runSyncJob(
            { db: ctx.db, client, owner, leaseMs, maxPages: opts.maxPages, openToken: (sealed) => ctx.secrets.open(sealed) },
            job.payload,
            signal,
          ),
    subscribe(control) {
      // A cancel takes effect now, even while the job waits on Kommo, not at the next page.
      const offWake = ctx.signals.onSyncRequested(() => control.wake());
      const offCancel = ctx.signals.onSyncCancelled((id) => control.abort(String(id)));
      return () => {
        offWake();
        offCancel();
      };
    },
  };
}

/** The sync alone on a runner of its own (tests and benches; the worker runs every queue on one runner). */
export function startKommoSyncRunner(ctx: AppContext, opts: SyncRunnerOptions = {}): BackgroundWork {
  const runner = new JobRunner({ db: ctx.db, log: ctx.log, owner: ctx.instanceId }).queue(kommoSyncQueue(ctx, opts));
  void runner.start();
  return { stop: () => runner.stop() };
}

const isRecheck = (account: AccountRow) => parseSyncState(account.syncState).requested === 'recheck';

export function failureMessage(err: unknown): string {
  const base = err instanceof KommoError || err instanceof SyncStopError ? err.message : 'Error interno durante la sincronización.';
  return `${base} Los contactos ya sincronizados se conservan.`;
}
