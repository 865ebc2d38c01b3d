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
import { conflict, notFound } from '../../lib/errors';
import { kommoClientFor } from '../../integrations/kommo/shared-client';
import { wakeSyncRunner } from '../../engine/kommo-sync/wake';
import { toAppError } from './kommo-errors';
import { toKommoAccount, toSyncStatus } from './account-row';

export const ACCOUNT_NOT_FOUND = 'Cuenta Kommo no encontrada';

/** Every query carries the user id: another user's account is simply not found. */
export function createKommoAccountsService(ctx: AppContext) {
  const { db } = ctx;
  const owned = (userId: number, id: number) => and(eq(kommoAccounts.id, id), eq(kommoAccounts.userId, userId));

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

    async create(userId: number, input: CreateKommoAccountInput & { subdomain: string; access_token: string; phone_field_id: number }) {
      try {
        const [row] = await db
          .insert(kommoAccounts)
          .values({
            userId,
            subdomain: input.subdomain,
            accessTokenEnc: ctx.secrets.seal(input.access_token),
            phoneFieldId: input.phone_field_id,
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
      // Another Kommo account or another phone field: the next sync must read everything again.
      if (
        (input.subdomain !== undefined && input.subdomain !== current.subdomain) ||
        (input.phone_field_id !== undefined && input.phone_field_id !== current.phoneFieldId)
      ) {
        patch.syncWatermark = null;
        patch.syncFullAt = null;
      }
      try {
        const [row] = await db.update(kommoAccounts).set(patch).where(owned(userId, id)).returning();
        if (!row) throw notFound(ACCOUNT_NOT_FOUND);
        return toKommoAccount(row);
      } catch (err) {
        throw duplicateSubdomain(err, input.subdomain ?? current.subdomain);
      }
    },

    async remove(userId: number, id: number): Promise<void> {
      try {
        const deleted = await db.delete(kommoAccounts).where(owned(userId, id)).returning({ id: kommoAccounts.id });
        if (deleted.length === 0) throw notFound(ACCOUNT_NOT_FOUND);
      } catch (err) {
        const code = (err as { code?: string; cause?: { code?: string } }).code ?? (err as { cause?: { code?: string } }).cause?.code;
        if (code === '23503') throw conflict('No se puede eliminar la cuenta: tiene campañas asociadas');
        throw err;
      }
    },

    /** For the phone-field picker of the "Nueva Cuenta" form: asks Kommo with the typed credentials. */
    async fetchCustomFields(input: { subdomain: string; access_token: string }): Promise<KommoField[]> {
      try {
        return await kommoClientFor(ctx.config, 'interactive').customFields(
          { subdomain: input.subdomain, accessToken: input.access_token },
          AbortSignal.timeout(60_000),
        );
      } catch (err) {
        throw toAppError(err);
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
      wakeSyncRunner();
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
