import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { toBsuid } from '../../lib/bsuid';
import { phoneKey, toE164 } from '../../lib/phone';
import { rowsOf } from '../../db/sql';
import { addOptOuts, removeOptOuts, type OptOutEntry } from './origins';

/**
 * Words that, sent alone, mean "stop messaging me" (any case, with or without accents, trailing
 * punctuation allowed): Spanish and Portuguese first, then English.
 */
export const OPT_OUT_WORDS = ['BAJA', 'STOP', 'ALTO', 'CANCELAR', 'NO MAS', 'SAIR', 'PARAR', 'DESUSCRIBIR', 'UNSUBSCRIBE'];
/** Sent alone, lifts an opt-out the person made with one of the words above (only those). */
export const OPT_IN_WORDS = ['ALTA'];

/** Longer than any opt-out word with its punctuation: skipped before the (quadratic) trimming. */
const MAX_OPT_OUT_LENGTH = 30;

/** The message as one upper-case word without accents or surrounding punctuation; null when too long to be one. */
function keyword(text: string): string | null {
  // trim() is linear; the punctuation-trimming regex below is not.
  const short = text.trim();
  if (short.length > MAX_OPT_OUT_LENGTH) return null;
  return short
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toUpperCase()
    .replace(/^[\s\p{P}\p{S}]+|[\s\p{P}\p{S}]+$/gu, '')
    .replace(/\s+/g, ' ');
}

export function isOptOut(text: string): boolean {
  const word = keyword(text);
  return word !== null && OPT_OUT_WORDS.includes(word);
}

export function isOptIn(text: string): boolean {
  const word = keyword(text);
  return word !== null && OPT_IN_WORDS.includes(word);
}

/** Who wrote: the phone (`from`) and/or the business-scoped user id (`from_user_id`). */
export interface Writer {
  phoneNumberId: string;
  wabaId: string;
  from: string;
  /** The sender's BSUID, when the webhook carried one. */
  userId?: string | null;
  text: string;
}

/** The person as the lists key them: by phone when known, else by BSUID; null when neither is usable. */
export function personOf(from: string, userId: string | null | undefined): { key: string; phone: string; bsuid: string | null } | null {
  const bsuid = toBsuid(userId);
  const digits = from.replace(/\D/g, '');
  if (digits.length >= 6 && digits.length <= 20) {
    const e164 = toE164('+' + digits) ?? '+' + digits;
    return { key: phoneKey(e164), phone: e164, bsuid };
  }
  return bsuid ? { key: bsuid, phone: bsuid, bsuid } : null;
}

/**
 * The tenant whose verified account owns the number written to (the number's WABA must equal
 * the webhook's `entry.id`). Unverified or mismatched accounts receive nothing: a tenant who
 * typed another tenant's ids must not learn that tenant's customers.
 */
export async function numberOwners(db: Db, phoneNumberId: string, wabaId: string, onlyUserId?: number) {
  if (!phoneNumberId || !wabaId) return [];
  const rows = await rowsOf<{ user_id: number; id: number }>(
    db,
    sql`select wa.user_id, wa.id from whatsapp_accounts wa
        where wa.phone_number_id = ${phoneNumberId} and wa.business_account_id = ${wabaId}
          and wa.owner_verified_at is not null
          ${onlyUserId === undefined ? sql`` : sql`and wa.user_id = ${onlyUserId}`}`,
  );
  return rows.map((r) => ({ userId: Number(r.user_id), whatsappAccountId: Number(r.id) }));
}

/**
 * Records an opt-out for the tenant owning the number it was written to, and shows it in the
 * blacklist of every Kommo account of that tenant. A person known only by BSUID (a username
 * user) is listed by BSUID. Returns how many tenants recorded it (0 or 1).
 */
export async function recordOptOut(
  db: Db,
  m: Writer,
  /** A quick-reply «Baja» names the campaign's tenant: only that tenant records it. */
  onlyUserId?: number,
): Promise<number> {
  const person = personOf(m.from, m.userId);
  if (!person) return 0;
  const owners = await numberOwners(db, m.phoneNumberId, m.wabaId, onlyUserId);
  const word = m.text.trim().slice(0, 40);
  const entries: OptOutEntry[] = owners.map((o) => ({
    ...o,
    ...person,
    word,
    origin: onlyUserId === undefined ? 'keyword' : 'button',
    reason: `Baja solicitada por WhatsApp ("${word}")`,
  }));
  return addOptOuts(db, entries);
}

/** "ALTA": lifts the keyword opt-out of the person who wrote it (never a button, marketing or manual entry). */
export async function recordOptIn(db: Db, m: Writer): Promise<number> {
  const person = personOf(m.from, m.userId);
  if (!person) return 0;
  const owners = await numberOwners(db, m.phoneNumberId, m.wabaId);
  return removeOptOuts(db, owners.map((o) => o.userId), [person.key, person.bsuid ?? ''], 'keyword');
}
