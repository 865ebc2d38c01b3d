import { and, desc, eq, ilike, or } from 'drizzle-orm';
import type { CountryCode } from 'libphonenumber-js/max';
import type { BlacklistEntry } from '@masivo/contract/blacklist';
import type { Db } from '../../db/client';
import { blacklist } from '../../db/schema/kommo';
import { optOuts } from '../../db/schema/whatsapp';
import { badRequest, conflict, notFound } from '../../lib/errors';
import { phoneKey, toE164 } from '../../lib/phone';
import { likePattern } from '../contacts/filter-engine';
import { ownedAccount } from '../contacts/account-access';
import { accountCountry as countryOfAccount } from '../../lib/phone';
import { announceOptChanges } from '../webhook-endpoints/outbox';

type Row = typeof blacklist.$inferSelect;

/** The list answers the newest entries; search reaches any of them. Bounded, so no list request grows without end. */
const LIST_LIMIT = 10_000;

const INVALID_PHONE = 'Número de teléfono inválido. Usa el formato internacional, por ejemplo +54 9 11 1234-5678';

function toEntry(r: Row): BlacklistEntry {
  return {
    id: r.id,
    phone: r.phone,
    reason: r.reason,
    created_at: new Date(r.createdAt).toISOString(),
    origin: r.origin as NonNullable<BlacklistEntry['origin']>,
    bsuid: r.bsuid,
  };
}

/**
 * A number as typed: national numbers are read in the account's country; digits that already
 * start with a country code (5491112345678) are read as international.
 */
export function normaliseBlacklistPhone(raw: string, country: CountryCode | undefined): string | null {
  const trimmed = raw.trim();
  if (/^(\+|00)/.test(trimmed)) return toE164(trimmed);
  return (country ? toE164(trimmed, country) : null) ?? toE164(trimmed);
}

/**
 * `reads` serves the list and the search, which tolerate lag (the read replica's `ctx.readDb`);
 * the account's ownership, adding, removing and the check (asked before acting on a number) use
 * `db`, the primary.
 */
export function createBlacklistService(db: Db, reads: Db = db) {
  async function accountCountry(userId: number, accountId: number) {
    const account = await ownedAccount(db, userId, accountId);
    return countryOfAccount(account);
  }
  const owned = (userId: number, accountId: number) => and(eq(blacklist.userId, userId), eq(blacklist.accountId, accountId));

  return {
    async list(userId: number, accountId: number): Promise<BlacklistEntry[]> {
      await ownedAccount(db, userId, accountId);
      const rows = await reads
        .select()
        .from(blacklist)
        .where(owned(userId, accountId))
        .orderBy(desc(blacklist.createdAt), desc(blacklist.id))
        .limit(LIST_LIMIT);
      return rows.map(toEntry);
    },

    async add(userId: number, accountId: number, input: { phone: string; reason?: string | null }, createdBy: number | null = null): Promise<BlacklistEntry> {
      const e164 = normaliseBlacklistPhone(input.phone, await accountCountry(userId, accountId));
      if (!e164) throw badRequest(INVALID_PHONE);
      const key = phoneKey(e164);
      const [row] = await db
        .insert(blacklist)
        .values({ userId, accountId, phone: e164, phoneKey: key, reason: input.reason?.trim() || null, createdBy })
        .onConflictDoNothing()
        .returning();
      if (!row) {
        // Show the number as it is listed, whatever format was typed this time.
        const [existing] = await db.select({ phone: blacklist.phone }).from(blacklist).where(and(owned(userId, accountId), eq(blacklist.phoneKey, key)));
        throw conflict(`El número ${existing?.phone ?? e164} ya está en la blacklist de esta cuenta`);
      }
      await announceOptChanges(db, 'contact.opted_out', [{ orgId: userId, phone: e164, origin: 'manual' }]);
      return toEntry(row);
    },

    /** Returns the number removed, for the activity log. */
    async remove(userId: number, accountId: number, id: number): Promise<{ phone: string }> {
      await ownedAccount(db, userId, accountId);
      return db.transaction(async (tx) => {
        const deleted = await tx
          .delete(blacklist)
          .where(and(owned(userId, accountId), eq(blacklist.id, id)))
          .returning({ phoneKey: blacklist.phoneKey, phone: blacklist.phone });
        if (deleted.length === 0) throw notFound('Número no encontrado en la blacklist');
        // The operator lifts the block on purpose (the person asked to hear again): a WhatsApp
        // opt-out of the same person, kept per tenant, goes too, or it would still block them.
        await tx.delete(optOuts).where(and(eq(optOuts.userId, userId), eq(optOuts.phoneKey, deleted[0]!.phoneKey)));
        await announceOptChanges(tx, 'contact.opted_in', [{ orgId: userId, phone: deleted[0]!.phone, origin: 'manual' }]);
        return { phone: deleted[0]!.phone };
      });
    },

    /** Matches the phone as shown, its digits (any format typed), or the reason. */
    async search(userId: number, accountId: number, query: string | undefined): Promise<BlacklistEntry[]> {
      await ownedAccount(db, userId, accountId);
      const q = (query ?? '').trim();
      const digits = q.replace(/\D/g, '');
      const match = q
        ? or(
            ilike(blacklist.phone, likePattern(q)),
            ilike(blacklist.reason, likePattern(q)),
            ...(digits.length >= 3 ? [ilike(blacklist.phoneKey, likePattern(digits))] : []),
          )
        : undefined;
      const rows = await reads
        .select()
        .from(blacklist)
        .where(and(owned(userId, accountId), match))
        .orderBy(desc(blacklist.createdAt), desc(blacklist.id))
        .limit(500);
      return rows.map(toEntry);
    },

    async check(userId: number, accountId: number, phone: string): Promise<{ blacklisted: boolean; entry: BlacklistEntry | null }> {
      const e164 = normaliseBlacklistPhone(phone, await accountCountry(userId, accountId));
      if (!e164) throw badRequest(INVALID_PHONE);
      const key = phoneKey(e164);
      const [row] = await db
        .select()
        .from(blacklist)
        .where(and(owned(userId, accountId), eq(blacklist.phoneKey, key)));
      if (row) return { blacklisted: true, entry: toEntry(row) };
      const [optOut] = await db
        .select({ phoneKey: optOuts.phoneKey })
        .from(optOuts)
        .where(and(eq(optOuts.userId, userId), eq(optOuts.phoneKey, key)));
      return { blacklisted: Boolean(optOut), entry: null };
    },
  };
}
