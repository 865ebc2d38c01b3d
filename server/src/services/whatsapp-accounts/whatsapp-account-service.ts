import { randomBytes } from 'node:crypto';
import { and, asc, eq, ne, sql } from 'drizzle-orm';
import type {
  CreateWhatsAppAccountInput,
  TestWhatsAppAccountResponse,
  UpdateWhatsAppAccountInput,
  WhatsAppAccount,
  WhatsAppAccountStats,
} from '@masivo/contract/whatsapp-accounts';
import { createWhatsAppAccountSchema, updateWhatsAppAccountSchema } from '@masivo/contract/whatsapp-accounts';
import type { z } from 'zod';
import type { AppContext } from '../../context';
import { kommoAccounts, whatsappAccounts, whatsappMessageCounts } from '../../db/schema/index';
import { AppError, conflict, notFound, UnreadableTokenError } from '../../lib/errors';
import { toWhatsAppAccount, type WhatsAppAccountRow } from './account-view';
import { assertNoUnfinishedCampaigns } from '../campaigns/unfinished-campaigns';
import { checkPhoneNumber } from './phone-check';
import { verifyNumberOwnership } from './verify-ownership';
import { intArray, rowsOf } from '../../db/sql';
import { portfolioKey, portfolioUsage } from './messaging-limit';

type CreateInput = z.output<typeof createWhatsAppAccountSchema>;
type UpdateInput = z.output<typeof updateWhatsAppAccountSchema>;
export type { CreateWhatsAppAccountInput, UpdateWhatsAppAccountInput };

const NOT_FOUND = 'Cuenta de WhatsApp no encontrada';

/** The verify token Meta echoes when subscribing the webhook; generated when the operator leaves it blank. */
const newVerifyToken = () => randomBytes(18).toString('base64url');

export function createWhatsAppAccountService(ctx: AppContext) {
  const { db, secrets, config } = ctx;

  const todayCount = sql<number>`coalesce((select ${whatsappMessageCounts.sent} from ${whatsappMessageCounts}
    where ${whatsappMessageCounts.whatsappAccountId} = ${whatsappAccounts.id} and ${whatsappMessageCounts.day} = current_date), 0)`;

  async function view(row: WhatsAppAccountRow): Promise<WhatsAppAccount> {
    const [count] = await db
      .select({ sent: whatsappMessageCounts.sent })
      .from(whatsappMessageCounts)
      .where(and(eq(whatsappMessageCounts.whatsappAccountId, row.id), sql`${whatsappMessageCounts.day} = current_date`));
    const usage = await portfolioUsage(db, row.userId);
    return toWhatsAppAccount(row, count?.sent ?? 0, config.PUBLIC_URL, usage.get(portfolioKey(row)) ?? 0);
  }

  async function owned(userId: number, id: number): Promise<WhatsAppAccountRow> {
    const [row] = await db
      .select()
      .from(whatsappAccounts)
      .where(and(eq(whatsappAccounts.id, id), eq(whatsappAccounts.userId, userId)))
      .limit(1);
    if (!row) throw notFound(NOT_FOUND);
    return row;
  }

  async function assertKommoAccount(userId: number, kommoAccountId: number | null | undefined) {
    if (!kommoAccountId) return;
    const [row] = await db
      .select({ id: kommoAccounts.id })
      .from(kommoAccounts)
      .where(and(eq(kommoAccounts.id, kommoAccountId), eq(kommoAccounts.userId, userId)));
    if (!row) throw notFound('Cuenta Kommo no encontrada');
  }

  /** One account per Meta number per user, or webhooks could not tell which one they are for. */
  async function assertUniqueNumber(userId: number, phoneNumberId: string, exceptId?: number) {
    const clash = await db
      .select({ id: whatsappAccounts.id })
      .from(whatsappAccounts)
      .where(
        and(
          eq(whatsappAccounts.userId, userId),
          eq(whatsappAccounts.phoneNumberId, phoneNumberId),
          exceptId ? ne(whatsappAccounts.id, exceptId) : undefined,
        ),
      );
    if (clash.length) throw conflict('Ya tienes una cuenta de WhatsApp con ese ID de número de teléfono');
  }

  /**
   * A Meta number has one verified account in the whole console: webhooks for it must reach
   * one tenant, and one pacer must hold its rate.
   */
  async function assertNumberFree(userId: number, phoneNumberId: string, exceptId?: number) {
    await assertUniqueNumber(userId, phoneNumberId, exceptId);
    const taken = await db
      .select({ id: whatsappAccounts.id })
      .from(whatsappAccounts)
      .where(
        and(
          eq(whatsappAccounts.phoneNumberId, phoneNumberId),
          sql`${whatsappAccounts.ownerVerifiedAt} is not null`,
          exceptId ? ne(whatsappAccounts.id, exceptId) : undefined,
        ),
      )
      .limit(1);
    if (taken.length) throw conflict(NUMBER_TAKEN);
  }

  /** The token to verify with: the new one, else the stored one (which must still decrypt). */
  function tokenFor(current: WhatsAppAccountRow | null, input: { access_token?: string }): string {
    if (input.access_token) return input.access_token;
    if (!current) throw new UnreadableTokenError();
    return secrets.open(current.accessTokenEnc);
  }

  /** False also when the stored token no longer decrypts: then the new one replaces it. */
  function sameToken(sealed: string, plain: string): boolean {
    try {
      return secrets.open(sealed) === plain;
    } catch (err) {
      if (err instanceof UnreadableTokenError) return false;
      throw err;
    }
  }

  /**
   * Accounts saved before ownership was checked get it on their next "Probar" or "Actualizar",
   * and only then receive inbound messages and template events again.
   */
  async function ensureOwnerVerified(row: WhatsAppAccountRow): Promise<WhatsAppAccountRow> {
    if (row.ownerVerifiedAt) return row;
    await assertNumberFree(row.userId, row.phoneNumberId, row.id);
    await verifyNumberOwnership(ctx.graph, secrets.open(row.accessTokenEnc), row.phoneNumberId, row.businessAccountId);
    const [updated] = await insertUnique(() =>
      db.update(whatsappAccounts).set({ ownerVerifiedAt: new Date() }).where(eq(whatsappAccounts.id, row.id)).returning(),
    );
    return updated ?? row;
  }

  return {
    owned,

    async list(userId: number): Promise<WhatsAppAccount[]> {
      const rows = await db
        .select({ row: whatsappAccounts, today: todayCount })
        .from(whatsappAccounts)
        .where(eq(whatsappAccounts.userId, userId))
        .orderBy(asc(whatsappAccounts.id));
      const usage = await portfolioUsage(db, userId);
      return rows.map(({ row, today }) => toWhatsAppAccount(row, Number(today), config.PUBLIC_URL, usage.get(portfolioKey(row)) ?? 0));
    },

    async get(userId: number, id: number) {
      return view(await owned(userId, id));
    },

    async create(userId: number, input: CreateInput, createdBy: number | null = null): Promise<WhatsAppAccount> {
      await assertKommoAccount(userId, input.kommo_account_id);
      await assertNumberFree(userId, input.phone_number_id);
      await verifyNumberOwnership(ctx.graph, input.access_token, input.phone_number_id, input.business_account_id);
      const [row] = await insertUnique(() =>
        db
        .insert(whatsappAccounts)
        .values({
          userId,
          name: input.name,
          phoneNumber: input.phone_number,
          phoneNumberId: input.phone_number_id,
          accessTokenEnc: secrets.seal(input.access_token),
          businessAccountId: input.business_account_id,
          kommoAccountId: input.kommo_account_id ?? null,
          webhookVerifyToken: input.webhook_verify_token ?? newVerifyToken(),
          notes: input.notes ?? null,
          isActive: input.is_active ?? true,
          ratePerSecond: input.rate_per_second ?? 80,
          defaultSendingHours: input.default_sending_hours ?? null,
          ownerVerifiedAt: new Date(),
          createdBy,
        })
        .returning(),
      );
      return view(row!);
    },

    async update(userId: number, id: number, input: UpdateInput): Promise<WhatsAppAccount> {
      const current = await owned(userId, id);
      if (input.kommo_account_id !== undefined) await assertKommoAccount(userId, input.kommo_account_id);
      const phoneNumberId = input.phone_number_id ?? current.phoneNumberId;
      const wabaId = input.business_account_id ?? current.businessAccountId;
      const numberChanged =
        phoneNumberId !== current.phoneNumberId ||
        wabaId !== current.businessAccountId ||
        (input.access_token !== undefined && !sameToken(current.accessTokenEnc, input.access_token));
      // Ownership is proven again whenever what it rests on changes, or was never proven.
      const verify = numberChanged || !current.ownerVerifiedAt;
      if (verify) {
        await assertNumberFree(userId, phoneNumberId, id);
        await verifyNumberOwnership(ctx.graph, tokenFor(current, input), phoneNumberId, wabaId);
      }
      const [row] = await insertUnique(() =>
        db
        .update(whatsappAccounts)
        .set({
          name: input.name,
          ...(input.phone_number !== undefined && { phoneNumber: input.phone_number }),
          ...(input.phone_number_id !== undefined && { phoneNumberId: input.phone_number_id }),
          ...(input.business_account_id !== undefined && { businessAccountId: input.business_account_id }),
          // A blank token keeps the current one (spec §5).
          ...(input.access_token !== undefined && { accessTokenEnc: secrets.seal(input.access_token) }),
          ...(input.kommo_account_id !== undefined && { kommoAccountId: input.kommo_account_id }),
          ...(input.webhook_verify_token !== undefined && { webhookVerifyToken: input.webhook_verify_token }),
          ...(input.notes !== undefined && { notes: input.notes }),
          ...(input.is_active !== undefined && { isActive: input.is_active }),
          ...(input.rate_per_second !== undefined && { ratePerSecond: input.rate_per_second }),
          ...(input.default_sending_hours !== undefined && { defaultSendingHours: input.default_sending_hours }),
          // What Meta told about the old number or token no longer holds.
          ...(numberChanged && { isVerified: false, lastCheckedAt: null }),
          // Its portfolio and messaging limit too: read again on the next "Probar".
          ...(numberChanged && { businessPortfolioId: null, dailyLimit: null, dailyLimitAt: null }),
          ...(verify && { ownerVerifiedAt: new Date() }),
          updatedAt: new Date(),
        })
        .where(and(eq(whatsappAccounts.id, id), eq(whatsappAccounts.userId, userId)))
        .returning(),
      );
      if (!row) throw notFound(NOT_FOUND);
      return view(row);
    },

    async remove(userId: number, id: number) {
      await owned(userId, id);
      await db.transaction(async (tx) => {
        await tx.execute(sql`select id from whatsapp_accounts where id = ${id} and user_id = ${userId} for update`);
        await assertNoUnfinishedCampaigns(tx, userId, { whatsappAccountId: id });
        await tx.delete(whatsappAccounts).where(and(eq(whatsappAccounts.id, id), eq(whatsappAccounts.userId, userId)));
      });
      return { success: true as const, message: 'Cuenta de WhatsApp eliminada' };
    },

    /** The organisation's numbers, or only `numbers` (a scoped member's). */
    async stats(userId: number, numbers: readonly number[] | null = null): Promise<WhatsAppAccountStats> {
      const inScope = numbers ? sql`and id = any(${intArray(numbers)})` : sql``;
      const [row] = await rowsOf<{
        total: number;
        active: number;
        verified: number;
        today: number;
        month: number;
      }>(ctx.db, sql`
        select
          (select count(*) from whatsapp_accounts where user_id = ${userId} ${inScope})::int as total,
          (select count(*) from whatsapp_accounts where user_id = ${userId} and is_active ${inScope})::int as active,
          (select count(*) from whatsapp_accounts where user_id = ${userId} and is_verified ${inScope})::int as verified,
          coalesce(sum(c.sent) filter (where c.day = current_date), 0)::int as today,
          coalesce(sum(c.sent) filter (where c.day >= date_trunc('month', current_date)::date), 0)::int as month
        from whatsapp_message_counts c
        join whatsapp_accounts a on a.id = c.whatsapp_account_id
        where a.user_id = ${userId} and c.day >= date_trunc('month', current_date)::date ${numbers ? sql`and a.id = any(${intArray(numbers)})` : sql``}`);
      return {
        total_accounts: Number(row?.total ?? 0),
        active_accounts: Number(row?.active ?? 0),
        verified_accounts: Number(row?.verified ?? 0),
        daily_messages_sent: Number(row?.today ?? 0),
        monthly_messages_sent: Number(row?.month ?? 0),
      };
    },

    /** Spec: a failed test is not an HTTP error; it answers `{ success: false, error }` with Meta's reason. */
    async test(userId: number, id: number): Promise<TestWhatsAppAccountResponse> {
      try {
        const row = await ensureOwnerVerified(await owned(userId, id));
        const updated = await checkPhoneNumber(db, secrets, ctx.graph, row);
        return { success: true, message: 'Conexión exitosa con la API de WhatsApp', account: await view(updated) };
      } catch (err) {
        // Meta's refusal, an unreadable token or a failed ownership check: reported, not thrown.
        if (err instanceof AppError && err.statusCode !== 404) return { success: false, error: err.message };
        throw err;
      }
    },

    async refresh(userId: number, id: number): Promise<WhatsAppAccount> {
      const row = await ensureOwnerVerified(await owned(userId, id));
      return view(await checkPhoneNumber(db, secrets, ctx.graph, row));
    },
  };
}

export type WhatsAppAccountService = ReturnType<typeof createWhatsAppAccountService>;

const NUMBER_TAKEN = 'Ese número de WhatsApp ya está conectado en otra cuenta de la consola';

/** Two verified accounts racing for one number: the unique index decides, in Spanish. */
async function insertUnique<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    const e = err as { code?: string; cause?: { code?: string } };
    if (e?.code === '23505' || e?.cause?.code === '23505') throw conflict(NUMBER_TAKEN);
    throw err;
  }
}
