import { and, eq, sql } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { kommoAccounts } from '../../db/schema/kommo';
import type { KommoClient } from '../../integrations/kommo/client';
import { KommoError } from '../../integrations/kommo/errors';
import { kommoClientFor } from '../../integrations/kommo/shared-client';
import type { BackgroundWork } from '../index';
import { LeaseLostError, runSyncJob } from './sync-job';
import { onSyncWake } from './wake';

export interface SyncRunnerOptions {
  client?: KommoClient;
  /** How often waiting or orphaned syncs are looked for. */
  pollMs?: number;
  /** A sync whose lease is not renewed for this long is taken over by another process. */
  leaseMs?: number;
  /** Accounts synced at once by this process (each has its own Kommo rate limit). */
  maxConcurrent?: number;
  /** Pages requested together; the rate limiter still spaces them. */
  windowPages?: number;
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
  const client = opts.client ?? kommoClientFor(ctx.config);
  const owner = ctx.instanceId;
  const stopper = new AbortController();
  const running = new Map<number, Promise<void>>();
  let timer: NodeJS.Timeout | undefined;
  let claiming = false;
  let again = false;

  async function claimOne(): Promise<AccountRow | undefined> {
    const rows = (await ctx.db.execute(sql`
      update kommo_accounts set sync_lease_owner = ${owner},
             sync_lease_expires_at = now() + make_interval(secs => ${leaseMs / 1000})
      where id = (
        select id from kommo_accounts
        where sync_status = 'syncing' and (sync_lease_expires_at is null or sync_lease_expires_at < now())
        order by updated_at limit 1 for update skip locked)
      returning id`)) as unknown as { rows: { id: number }[] };
    const id = rows.rows[0]?.id;
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
          const job = run(account).finally(() => {
            running.delete(account.id);
            if (!stopper.signal.aborted) void tick();
          });
          running.set(account.id, job);
        }
      } while (again && !stopper.signal.aborted);
    } catch {
      // The database is briefly unavailable: the next poll tries again.
    } finally {
      claiming = false;
    }
  }

  async function run(account: AccountRow) {
    const renew = setInterval(() => void renewLease(account.id), Math.max(1000, leaseMs / 3));
    try {
      await runSyncJob(
        {
          db: ctx.db,
          client,
          owner,
          leaseMs,
          windowPages: opts.windowPages ?? 3,
          openToken: (sealed) => ctx.secrets.open(sealed),
        },
        account,
        stopper.signal,
      );
    } catch (err) {
      if (stopper.signal.aborted) return releaseLease(account.id);
      if (err instanceof LeaseLostError) return; // deleted, or restarted by the operator
      await recordFailure(account.id, failureMessage(err));
    } finally {
      clearInterval(renew);
    }
  }

  async function renewLease(id: number) {
    try {
      await ctx.db
        .update(kommoAccounts)
        .set({ syncLeaseExpiresAt: sql`now() + make_interval(secs => ${leaseMs / 1000})` })
        .where(and(eq(kommoAccounts.id, id), eq(kommoAccounts.syncLeaseOwner, owner)));
    } catch {
      // a missed renewal only risks a takeover, which the lease check on every page handles
    }
  }

  /** Stopping is not failing: the sync stays 'syncing' and the next process resumes it at once. */
  async function releaseLease(id: number) {
    try {
      await ctx.db
        .update(kommoAccounts)
        .set({ syncLeaseOwner: null, syncLeaseExpiresAt: null })
        .where(and(eq(kommoAccounts.id, id), eq(kommoAccounts.syncLeaseOwner, owner)));
    } catch {
      // the lease expires on its own
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
    } catch {
      // the lease expires and another attempt resumes the sync
    }
  }

  const unsubscribe = onSyncWake(() => void tick());
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
      unsubscribe();
      clearTimeout(timer);
      stopper.abort(new Error('stopping'));
      await Promise.allSettled(running.values());
    },
  };
}

export function failureMessage(err: unknown): string {
  const base = err instanceof KommoError ? err.message : 'Error interno durante la sincronización.';
  return `${base} Los contactos ya sincronizados se conservan.`;
}
