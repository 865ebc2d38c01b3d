import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { phoneKey, toE164 } from '../../lib/phone';

/** Words that, sent alone, mean "stop messaging me" (any case, with or without accents). */
export const OPT_OUT_WORDS = ['BAJA', 'STOP', 'CANCELAR', 'ALTO', 'DESUSCRIBIR', 'UNSUBSCRIBE'];

export function isOptOut(text: string): boolean {
  const word = text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toUpperCase()
    .replace(/^[\s\p{P}\p{S}]+|[\s\p{P}\p{S}]+$/gu, '');
  return OPT_OUT_WORDS.includes(word);
}

/**
 * Adds the sender of an opt-out to the blacklist of every Kommo account linked to the
 * WhatsApp number it wrote to (several users may have registered the same number).
 */
export async function blacklistOptOut(db: Db, phoneNumberId: string, from: string, word: string): Promise<number> {
  const digits = from.replace(/\D/g, '');
  if (digits.length < 6) return 0;
  const e164 = toE164('+' + digits) ?? '+' + digits;
  const key = phoneKey(e164);
  const reason = `Baja solicitada por WhatsApp ("${word.trim().slice(0, 40)}")`;
  const res = (await db.execute(sql`insert into blacklist (user_id, account_id, phone, phone_key, reason)
      select distinct ka.user_id, ka.id, ${e164}, ${key}, ${reason}
      from whatsapp_accounts wa join kommo_accounts ka on ka.id = wa.kommo_account_id
      where wa.phone_number_id = ${phoneNumberId}
      on conflict (account_id, phone_key) do nothing
      returning id`)) as unknown as { rows: unknown[] };
  return res.rows.length;
}
