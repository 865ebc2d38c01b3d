import { and, eq, sql } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { rowsOf } from '../../db/sql';
import { kommoAccounts } from '../../db/schema/kommo';
import type { KommoClient } from '../../integrations/kommo/client';
import { KommoError } from '../../integrations/kommo/errors';
import type { BackgroundWork } from '../background-work';
import { LeaseLostError, SyncStopError } from './sync-errors';
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

/**
 * The background sync runner. The database is the queue: an account with sync_status
 * 'syncing' and no live lease is waiting. A process takes it by writing its lease, so one
 * account never syncs twice at once, and a sync left by a dead process resumes from its
 * saved cursor once the lease expires.
 */
export function startKommoSyncRunner(ctx: AppContext, opts: SyncRunnerOptions = {}): BackgroundWork {
  const pollMs = opts.pollMs ?? 1000;
  const leaseMs = opts.leaseMs ?? 30_000;
  const maxConcurrent = opts.maxConcurrent ?? 4;
  const maxPerUser = Math.max(1, Math.min(opts.maxPerUser ?? Math.ceil(maxConcurrent / 2), maxConcurrent));
  const client = opts.client ?? ctx.kommo.sync;
  const owner = ctx.instanceId;
  const stopper = new AbortController();
  const running = new Map<number, { job: Promise<void>; userId: number; stop: AbortController }>();
  let timer: NodeJS.Timeout | undefined;
  let claiming = false;
  let again = false;

  /** Users holding their share of this process's slots; their waiting syncs wait for a free one of theirs. */
  function fullUsers(): number[] {
    const perUser = new Map<number, number>();
    for (const r of running.values()) perUser.set(r.userId, (perUser.get(r.userId) ?? 0) + 1);
    return [...perUser].filter(([, n]) => n >= maxPerUser).map(([u]) => u);
  }

  async function claimOne(): Promise<AccountRow | undefined> {
    const full = fullUsers();
    const skipUsers = full.length > 0 ? sql`and user_id not in (${sql.join(full.map((u) => sql`${u}`), sql`, `)})` : sql``;
    const [claimed] = await rowsOf<{ id: number }>(ctx.db, sql`
      update kommo_accounts set sync_lease_owner = ${owner},
             sync_lease_expires_at = now() + make_interval(secs => ${leaseMs / 1000})
      where id = (
        select id from kommo_accounts
        where sync_status = 'syncing' and (sync_lease_expires_at is null or sync_lease_expires_at < now()) ${skipUsers}
        order by updated_at limit 1 for update skip locked)
      returning id`);
    const id = claimed?.id;
    if (id === undefined) return undefined;
    const [row] = await ctx.db.select().from(kommoAccounts).where(eq(kommoAccounts.id, id));
    return row;
  }

  async function tick() {
    if (claiming) {
      again = true;
      return;
    }
    claiming = true;
    try {
      do {
        again = false;
        while (!stopper.signal.aborted && running.size < maxConcurrent) {
          const account = await claimOne();
          if (!account) break;
          const stop = new AbortController();
          const job = run(account, stop).finally(() => {
            running.delete(account.id);
            if (!stopper.signal.aborted) void tick();
          });
          running.set(account.id, { job, userId: account.userId, stop });
        }
      } while (again && !stopper.signal.aborted);
    } catch (err) {
      // The database is briefly unavailable: the next poll tries again.
      ctx.log.warn({ engine: 'kommo-sync', err }, 'claiming a sync failed');
    } finally {
      claiming = false;
    }
  }

  async function run(account: AccountRow, stop: AbortController) {
    // The job stops when the process stops or when its lease is gone (cancel, delete, takeover),
    // even while it waits on Kommo: a cancel takes effect now, not at the next page.
    const signal = AbortSignal.any([stopper.signal, stop.signal]);
    const renew = setInterval(() => void renewLease(account.id, stop), Math.max(1000, leaseMs / 3));
    // A new default country re-reads the stored phones: a job of this runner, so it never runs
    // beside a sync of the same account, and resumes like one.
    const recheck = parseSyncState(account.syncState).requested === 'recheck';
    try {
      if (recheck) {
        await runPhoneRecheck({ db: ctx.db, owner, leaseMs }, account, signal);
        return;
      }
      await runSyncJob(
        {
          db: ctx.db,
          client,
          owner,
          leaseMs,
          maxPages: opts.maxPages,
          openToken: (sealed) => ctx.secrets.open(sealed),
        },
        account,
        signal,
      );
      ctx.metrics.syncEnded('ok');
    } catch (err) {
      if (stopper.signal.aborted) return releaseLease(account.id);
      if (stop.signal.aborted || err instanceof LeaseLostError) return; // cancelled, deleted, or restarted by the operator
      // Kommo's refusals are the operator's to read on the account; anything else is ours to read here.
      if (recheck) {
        ctx.log.error({ engine: 'kommo-sync', err }, `phone re-check of Kommo account ${account.id} failed`);
        return await recordFailure(account.id, RECHECK_FAILED);
      }
      if (!(err instanceof KommoError || err instanceof SyncStopError)) ctx.log.error({ engine: 'kommo-sync', err }, `sync of Kommo account ${account.id} failed`);
      ctx.metrics.syncEnded('error');
      await recordFailure(account.id, failureMessage(err));
    } finally {
      clearInterval(renew);
    }
  }

  async function renewLease(id: number, stop: AbortController) {
    try {
      const rows = await ctx.db
        .update(kommoAccounts)
        .set({ syncLeaseExpiresAt: sql`now() + make_interval(secs => ${leaseMs / 1000})` })
        .where(and(eq(kommoAccounts.id, id), eq(kommoAccounts.syncLeaseOwner, owner), eq(kommoAccounts.syncStatus, 'syncing')))
        .returning({ id: kommoAccounts.id });
      if (rows.length === 0) stop.abort(new LeaseLostError());
    } catch (err) {
      // a missed renewal only risks a takeover, which the lease check on every page handles
      ctx.log.warn({ engine: 'kommo-sync', err }, 'sync lease renewal failed');
    }
  }

  /** Stopping is not failing: the sync stays 'syncing' and the next process resumes it at once. */
  async function releaseLease(id: number) {
    try {
      await ctx.db
        .update(kommoAccounts)
        .set({ syncLeaseOwner: null, syncLeaseExpiresAt: null })
        .where(and(eq(kommoAccounts.id, id), eq(kommoAccounts.syncLeaseOwner, owner)));
    } catch (err) {
      // the lease expires on its own
      ctx.log.warn({ engine: 'kommo-sync', err }, 'sync lease release failed');
    }
  }

  async function recordFailure(id: number, message: string) {
    try {
      await ctx.db
        .update(kommoAccounts)
        .set({
          syncStatus: 'error',
          syncErrorMessage: message,
          syncState: null,
          syncLeaseOwner: null,
          syncLeaseExpiresAt: null,
          updatedAt: new Date(),
        })
        .where(and(eq(kommoAccounts.id, id), eq(kommoAccounts.syncLeaseOwner, owner)));
    } catch (err) {
      // the lease expires and another attempt resumes the sync
      ctx.log.warn({ engine: 'kommo-sync', err }, 'recording a sync failure failed');
    }
  }

  const unsubscribeWake = ctx.signals.onSyncRequested(() => void tick());
  const unsubscribeCancel = ctx.signals.onSyncCancelled((id) => running.get(id)?.stop.abort(new LeaseLostError()));
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
      unsubscribeWake();
      unsubscribeCancel();
      clearTimeout(timer);
      stopper.abort(new Error('stopping'));
      await Promise.allSettled([...running.values()].map((r) => r.job));
    },
  };
}

export function failureMessage(err: unknown): string {
  const base = err instanceof KommoError || err instanceof SyncStopError ? err.message : 'Error interno durante la sincronización.';
  return `${base} Los contactos ya sincronizados se conservan.`;
}
