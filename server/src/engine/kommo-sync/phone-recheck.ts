import { setImmediate as nextTurn } from 'node:timers/promises';
import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { kommoAccounts } from '../../db/schema/kommo';
import { jsonParam, rowsOf } from '../../db/sql';
import { countryCode, toE164 } from '../../lib/phone';
import { parseRecheck, type StoredRecheck } from '../../services/kommo-accounts/phone-recheck-state';
import { LeaseLostError } from './sync-errors';
import { parseSyncState, type RecheckState, type SyncState } from './sync-state';

type AccountRow = typeof kommoAccounts.$inferSelect;

/** Contacts read, parsed and written per transaction: each holds its row locks for milliseconds. */
export const RECHECK_BATCH = 1_000;

export const RECHECK_FAILED =
  'Error interno al revisar los teléfonos. Los contactos ya revisados conservan el teléfono leído con el nuevo país; guarda el país otra vez para terminar.';

export interface RecheckDeps {
  db: Db;
  owner: string;
  leaseMs: number;
  /** Contacts per batch (tests lower it to see several). */
  batch?: number;
}

/**
 * Re-reads the phone of every contact of the account from the raw value the sync stored
 * (`phone_raw`), in the account's new default country, without asking Kommo. A full sync with
 * that country would store the same phone (one exception: a contact whose first Kommo phone was
 * not valid keeps the one that was).
 *
 * Contacts are walked in id order a batch at a time; a batch's changed phones and the cursor are
 * written in one short transaction together with the lease check, so a crash resumes after the
 * last batch written and a million contacts never hold a lock for long. Only `contacts.phone` is
 * written: the stored phone key and everything derived from it (contact_facets, contact_people,
 * contact_people_prefixes, the search text, the data version) follow through the triggers.
 */
export async function runPhoneRecheck(deps: RecheckDeps, account: AccountRow, signal: AbortSignal): Promise<void> {
  const { db } = deps;
  const batch = deps.batch ?? RECHECK_BATCH;
  let state = parseSyncState(account.syncState);
  const recheck = state.recheck;
  const progress = parseRecheck(account.phoneRecheck);
  if (!recheck || !progress) throw new Error('phone re-check without its state');
  const country = countryCode(recheck.country);

  for (;;) {
    signal.throwIfAborted();
    const rows = await rowsOf<{ id: number | string; phone: string | null; phone_raw: string | null }>(
      db,
      sql`select id, phone, phone_raw from contacts
          where account_id = ${account.id} and id > ${recheck.afterId} order by id limit ${batch}`,
    );
    if (rows.length === 0) break;
    const changes: Array<{ id: number; phone: string | null; old: string | null }> = [];
    for (const r of rows) {
      const phone = toE164(r.phone_raw, country);
      if (phone === r.phone) continue;
      changes.push({ id: Number(r.id), phone, old: r.phone });
      if (r.phone === null) progress.became_valid++;
      else if (phone === null) progress.became_invalid++;
      else progress.changed++;
    }
    recheck.afterId = Number(rows[rows.length - 1].id);
    progress.processed += rows.length;
    progress.total = Math.max(progress.total, progress.processed);
    state = { ...state, recheck };
    await db.transaction(async (tx) => {
      if (changes.length > 0) {
        // Only a phone still as read is replaced (the sync cannot run meanwhile; this is the belt).
        await tx.execute(sql`update contacts c set phone = v.phone, updated_at = now()
            from jsonb_to_recordset(${jsonParam(changes)}) as v(id bigint, phone text, old text)
            where c.id = v.id and c.account_id = ${account.id} and c.phone is not distinct from v.old`);
      }
      await saveRecheck(tx, deps, account.id, state, progress);
    });
    if (rows.length < batch) break;
    // The embedded database answers on the event loop: a turn between batches lets the API answer.
    await nextTurn();
  }
  await finishRecheck(deps, account.id, recheck, progress);
}

async function saveRecheck(db: Pick<Db, 'update'>, deps: RecheckDeps, accountId: number, state: SyncState, progress: StoredRecheck) {
  const rows = await db
    .update(kommoAccounts)
    .set({
      syncState: state,
      phoneRecheck: progress,
      syncLeaseExpiresAt: sql`now() + make_interval(secs => ${deps.leaseMs / 1000})`,
    })
    .where(and(eq(kommoAccounts.id, accountId), eq(kommoAccounts.syncLeaseOwner, deps.owner), eq(kommoAccounts.syncStatus, 'syncing')))
    .returning({ id: kommoAccounts.id });
  if (rows.length === 0) throw new LeaseLostError();
}

/** The account goes back to the sync status it had before, with the result on its card. */
async function finishRecheck(deps: RecheckDeps, accountId: number, recheck: RecheckState, progress: StoredRecheck) {
  const rows = await deps.db
    .update(kommoAccounts)
    .set({
      syncStatus: recheck.previousStatus,
      syncState: null,
      syncLeaseOwner: null,
      syncLeaseExpiresAt: null,
      phoneRecheck: { ...progress, status: 'done', finished_at: new Date().toISOString() },
      updatedAt: new Date(),
    })
    .where(and(eq(kommoAccounts.id, accountId), eq(kommoAccounts.syncLeaseOwner, deps.owner), eq(kommoAccounts.syncStatus, 'syncing')))
    .returning({ id: kommoAccounts.id });
  if (rows.length === 0) throw new LeaseLostError();
}
