import { and, asc, eq, ne, sql } from 'drizzle-orm';
import type {
  CreateKommoAccountInput,
  KommoAccount,
  KommoField,
  SyncStatusInfo,
  UpdateKommoAccountInput,
} from '@masivo/contract/kommo-accounts';
import type { AppContext } from '../../context';
import { kommoAccounts } from '../../db/schema/kommo';
import { AppError, conflict, notFound } from '../../lib/errors';
import { kommoDeadline } from '../../integrations/kommo/errors';
import { SYNC_CANCELLED } from './sync-messages';
import { assertNoUnfinishedCampaigns } from '../campaigns/unfinished-campaigns';
import { createThrottle } from './fields-throttle';
import { toKommoAccount, toPhoneRecheck, toSyncStatus } from './account-row';
import { queueRecheckSet } from './phone-recheck-state';
import { accountCountry } from '../../lib/phone';
import { rowsOf } from '../../db/sql';
import { newHookSecret } from '../kommo-inbound/hook-secret';
import { dropHookSubscription } from '../kommo-inbound/subscription';

export const ACCOUNT_NOT_FOUND = 'Cuenta Kommo no encontrada';
export const EDIT_WHILE_SYNCING =
  'No se puede cambiar el subdominio, el token ni el campo de teléfono mientras la cuenta se sincroniza. Espera a que termine o cancela la sincronización.';
export const COUNTRY_WHILE_SYNCING =
  'No se puede cambiar el país por defecto mientras la cuenta se sincroniza o revisa sus teléfonos. Espera a que termine o cancélala.';
export const NOT_SYNCING = 'La cuenta no tiene una sincronización en curso';
export const FIELDS_RATE_LIMITED = 'Demasiadas consultas de campos a Kommo. Espera un minuto e intenta de nuevo.';
/** "Obtener Campos": calls per user per minute, and the most one call may take. */
export const FIELDS_PER_MINUTE = 10;
export const FIELDS_TIMEOUT_MS = 25_000;

type Row = typeof kommoAccounts.$inferSelect;

/**
 * A default country needs a re-check of the stored phones when it changes the country they are
 * read in, or when the last re-check did not finish.
 */
function needsRecheck(current: Row, defaultCountry: string | null): boolean {
  const before = accountCountry(current) ?? null;
  const after = accountCountry({ ...current, defaultCountry }) ?? null;
  return before !== after || toPhoneRecheck(current)?.status === 'interrupted';
}

/** Every query carries the user id: another user's account is simply not found. */
export function createKommoAccountsService(ctx: AppContext) {
  const { db } = ctx;
  const owned = (userId: number, id: number) => and(eq(kommoAccounts.id, id), eq(kommoAccounts.userId, userId));
  const fieldsThrottle = createThrottle(FIELDS_PER_MINUTE, 60_000);

  async function find(userId: number, id: number) {
    const [row] = await db.select().from(kommoAccounts).where(owned(userId, id));
    if (!row) throw notFound(ACCOUNT_NOT_FOUND);
    return row;
  }

  function duplicateSubdomain(err: unknown, subdomain: string): unknown {
    const code = (err as { code?: string; cause?: { code?: string } }).code ?? (err as { cause?: { code?: string } }).cause?.code;
    if (code === '23505') return conflict(`Ya tienes una cuenta Kommo con el subdominio "${subdomain}"`);
    return err;
  }

  return {
    async list(userId: number): Promise<KommoAccount[]> {
      const rows = await db.select().from(kommoAccounts).where(eq(kommoAccounts.userId, userId)).orderBy(asc(kommoAccounts.id));
      return rows.map(toKommoAccount);
    },

    async get(userId: number, id: number): Promise<KommoAccount> {
      return toKommoAccount(await find(userId, id));
    },

    async create(userId: number, input: CreateKommoAccountInput & { subdomain: string; access_token: string; phone_field_id: number }, createdBy: number | null = null) {
      try {
        const [row] = await db
          .insert(kommoAccounts)
          .values({
            userId,
            subdomain: input.subdomain,
            accessTokenEnc: ctx.secrets.seal(input.access_token),
            phoneFieldId: input.phone_field_id,
            hookSecret: newHookSecret(),
            // Kommo's events log is read from the moment the account is connected (deletions and
            // stage moves after it are ours to see); its contacts from where its first sync ends.
            catchupEventsFrom: Math.floor(Date.now() / 1000),
            catchupEventsSeen: [],
            createdBy,
          })
          .returning();
        return toKommoAccount(row);
      } catch (err) {
        throw duplicateSubdomain(err, input.subdomain);
      }
    },

    async update(userId: number, id: number, input: UpdateKommoAccountInput & { phone_field_id?: number }) {
      const current = await find(userId, id);
      const patch: Partial<typeof kommoAccounts.$inferInsert> = { updatedAt: new Date() };
      if (input.subdomain !== undefined) patch.subdomain = input.subdomain;
      if (input.access_token) patch.accessTokenEnc = ctx.secrets.seal(input.access_token);
      if (input.phone_field_id !== undefined) patch.phoneFieldId = input.phone_field_id;
      if (input.time_zone_field !== undefined) patch.timeZoneField = input.time_zone_field;
      if (input.time_zone !== undefined) patch.timeZone = input.time_zone;
      // A new default country re-reads the stored phones in the background (the sync runner's
      // job, so never beside a sync); saving the same country again finishes an interrupted one.
      const recheck = input.default_country !== undefined && needsRecheck(current, input.default_country ?? null);
      if (input.default_country !== undefined) patch.defaultCountry = input.default_country;
      if (recheck) Object.assign(patch, queueRecheckSet(accountCountry({ ...current, defaultCountry: input.default_country }) ?? null));
      // Another Kommo account or another phone field: the next sync must read everything again.
      if (
        (input.subdomain !== undefined && input.subdomain !== current.subdomain) ||
        (input.phone_field_id !== undefined && input.phone_field_id !== current.phoneFieldId)
      ) {
        patch.syncWatermark = null;
        patch.syncFullAt = null;
      }
      // Another Kommo account: its subscription and the catch-up's cursors start again.
      if (input.subdomain !== undefined && input.subdomain !== current.subdomain) {
        Object.assign(patch, { hookStatus: null, hookCheckedAt: null, catchupEventsFrom: null, catchupEventsSeen: null, catchupContactsFrom: null, catchupContactsSeen: null });
      }
      // A running sync holds the old credentials and phone field and would write its results
      // over the edit: such an edit waits until the sync ends or is cancelled. The condition is
      // in the update itself, so a sync started meanwhile cannot slip between check and write.
      const touchesSync = input.subdomain !== undefined || !!input.access_token || input.phone_field_id !== undefined;
      const where = touchesSync || recheck ? and(owned(userId, id), ne(kommoAccounts.syncStatus, 'syncing')) : owned(userId, id);
      try {
        const [row] = await db.update(kommoAccounts).set(patch).where(where).returning();
        if (!row) {
          await find(userId, id);
          throw conflict(touchesSync ? EDIT_WHILE_SYNCING : COUNTRY_WHILE_SYNCING);
        }
        if (recheck) ctx.signals.syncRequested();
        return toKommoAccount(row);
      } catch (err) {
        throw duplicateSubdomain(err, input.subdomain ?? current.subdomain);
      }
    },

    async remove(userId: number, id: number): Promise<void> {
      const removed = await db.transaction(async (tx) => {
        const locked = await rowsOf(tx, sql`select id from kommo_accounts where id = ${id} and user_id = ${userId} for update`);
        if (!locked.length) throw notFound(ACCOUNT_NOT_FOUND);
        // Its blacklist goes with it, so a campaign still checking that blacklist must not be left.
        await assertNoUnfinishedCampaigns(tx, userId, { kommoAccountId: id });
        const [row] = await tx.delete(kommoAccounts).where(owned(userId, id)).returning();
        return row;
      });
      // Kommo's subscription goes too, in the background: the removal never waits on Kommo.
      if (removed) void dropHookSubscription(ctx, removed);
    },

    /** For the phone-field picker of the "Nueva Cuenta" form: asks Kommo with the typed credentials. */
    async fetchCustomFields(userId: number, input: { subdomain: string; access_token: string }): Promise<KommoField[]> {
      if (!fieldsThrottle.take(userId)) throw new AppError(429, FIELDS_RATE_LIMITED);
      try {
        return await ctx.kommo.interactive.customFields(
          { subdomain: input.subdomain, accessToken: input.access_token },
          AbortSignal.timeout(FIELDS_TIMEOUT_MS),
        );
      } catch (err) {
        throw kommoDeadline(err);
      }
    },

    /**
     * Marks the account as waiting for the sync runner. The conditional update is the lock:
     * a second click while a sync runs changes nothing and is refused.
     */
    async startSync(userId: number, id: number, full = false): Promise<SyncStatusInfo> {
      const [row] = await db
        .update(kommoAccounts)
        .set({
          syncStatus: 'syncing',
          syncErrorMessage: null,
          syncProgressContacts: 0,
          syncState: { requested: full ? 'full' : 'auto' },
          syncLeaseOwner: null,
          syncLeaseExpiresAt: null,
          updatedAt: new Date(),
        })
        .where(and(owned(userId, id), ne(kommoAccounts.syncStatus, 'syncing')))
        .returning();
      if (!row) {
        await find(userId, id);
        throw conflict('La sincronización de esta cuenta ya está en curso');
      }
      ctx.signals.syncRequested();
      return toSyncStatus(row);
    },

    /**
     * Stops a running sync. What was written stays; nothing is deleted (only the end of a full
     * sync deletes). Clearing the lease makes the job's next write fail, and the runner of this
     * process is told at once; another process notices at its next lease renewal.
     */
    async cancelSync(userId: number, id: number): Promise<SyncStatusInfo> {
      const [row] = await db
        .update(kommoAccounts)
        .set({
          // A cancelled re-check of the phones leaves the account as it was before (its card
          // shows the re-check as interrupted); a cancelled sync is an error the operator reads.
          syncStatus: sql`case when ${kommoAccounts.syncState} ->> 'requested' = 'recheck'
            then coalesce(${kommoAccounts.syncState} -> 'recheck' ->> 'previousStatus', 'idle') else 'error' end`,
          syncErrorMessage: sql`case when ${kommoAccounts.syncState} ->> 'requested' = 'recheck' then ${kommoAccounts.syncErrorMessage} else ${SYNC_CANCELLED} end`,
          syncState: null,
          syncLeaseOwner: null,
          syncLeaseExpiresAt: null,
          updatedAt: new Date(),
        })
        .where(and(owned(userId, id), eq(kommoAccounts.syncStatus, 'syncing')))
        .returning();
      if (!row) {
        await find(userId, id);
        throw conflict(NOT_SYNCING);
      }
      ctx.signals.syncCancelled(id);
      return toSyncStatus(row);
    },

    async syncStatus(userId: number, id: number): Promise<SyncStatusInfo> {
      return toSyncStatus(await find(userId, id));
    },

    /** Sum of synced contacts over the user's accounts (dashboard "Total Contactos"). */
    async totalContacts(userId: number): Promise<number> {
      const [row] = await db
        .select({ n: sql<number>`coalesce(sum(${kommoAccounts.syncTotalContacts}), 0)::int` })
        .from(kommoAccounts)
        .where(eq(kommoAccounts.userId, userId));
      return Number(row?.n ?? 0);
    },
  };
}

export type KommoAccountsService = ReturnType<typeof createKommoAccountsService>;
