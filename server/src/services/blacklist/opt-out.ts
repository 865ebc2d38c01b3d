import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { phoneKey, toE164 } from '../../lib/phone';
import { rowsOf } from '../../db/sql';

/** Words that, sent alone, mean "stop messaging me" (any case, with or without accents). */
export const OPT_OUT_WORDS = ['BAJA', 'STOP', 'CANCELAR', 'ALTO', 'DESUSCRIBIR', 'UNSUBSCRIBE'];

/** Longer than any opt-out word with its punctuation: skipped before the (quadratic) trimming. */
const MAX_OPT_OUT_LENGTH = 30;

export function isOptOut(text: string): boolean {
  // trim() is linear; the punctuation-trimming regex below is not.
  const short = text.trim();
  if (short.length > MAX_OPT_OUT_LENGTH) return false;
  const word = short
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toUpperCase()
    .replace(/^[\s\p{P}\p{S}]+|[\s\p{P}\p{S}]+$/gu, '');
  return OPT_OUT_WORDS.includes(word);
}

/**
 * Records an opt-out for the tenant whose verified account owns the number it was written to
 * (the number's WABA must equal the webhook's `entry.id`), and shows it in the blacklist of
 * every Kommo account of that tenant. Unverified or mismatched accounts receive nothing: a
 * tenant who typed another tenant's ids must not learn that tenant's customers. Returns how
 * many tenants recorded it (0 or 1: a number has at most one verified account).
 */
export async function recordOptOut(
  db: Db,
  m: { phoneNumberId: string; wabaId: string; from: string; text: string },
  /** A quick-reply «Baja» names the campaign's tenant: only that tenant records it. */
  onlyUserId?: number,
): Promise<number> {
  const digits = m.from.replace(/\D/g, '');
  if (digits.length < 6 || digits.length > 20 || !m.phoneNumberId || !m.wabaId) return 0;
  const e164 = toE164('+' + digits) ?? '+' + digits;
  const key = phoneKey(e164);
  const word = m.text.trim().slice(0, 40);
  const reason = `Baja solicitada por WhatsApp ("${word}")`;
  const inserted = await rowsOf<{ user_id: number }>(db, sql`insert into opt_outs (user_id, phone_key, phone, whatsapp_account_id, word)
      select wa.user_id, ${key}, ${e164}, wa.id, ${word}
      from whatsapp_accounts wa
      where wa.phone_number_id = ${m.phoneNumberId} and wa.business_account_id = ${m.wabaId}
        and wa.owner_verified_at is not null
        ${onlyUserId === undefined ? sql`` : sql`and wa.user_id = ${onlyUserId}`}
      on conflict (user_id, phone_key) do update set word = excluded.word
      returning user_id`);
  const users = inserted.map((r) => Number(r.user_id));
  if (!users.length) return 0;
  await db.execute(sql`insert into blacklist (user_id, account_id, phone, phone_key, reason)
      select ka.user_id, ka.id, ${e164}, ${key}, ${reason}
      from kommo_accounts ka
      where ka.user_id = any(array(select (jsonb_array_elements_text(${JSON.stringify(users)}::jsonb))::int))
      on conflict (account_id, phone_key) do nothing`);
  return users.length;
}
