import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { rowsOf } from '../../db/sql';

/**
 * Which of these phone keys (lib/phone.ts phoneKey) must not be messaged: those in the Kommo
 * account's blacklist, and those who opted out of any of the tenant's numbers (kept per tenant,
 * so they hold whatever the campaign's Kommo account, and even when it has none). The campaign
 * sender asks right before sending, so a number blocked after the audience was drawn is skipped.
 */
export async function blacklistedKeys(db: Db, userId: number, accountId: number | null, keys: string[]): Promise<Set<string>> {
  const unique = [...new Set(keys.filter(Boolean))];
  if (unique.length === 0) return new Set();
  const wanted = sql`(select jsonb_array_elements_text(${JSON.stringify(unique)}::jsonb))`;
  const found = await rowsOf<{ phone_key: string }>(db, sql`
    select phone_key from opt_outs where user_id = ${userId} and phone_key in ${wanted}
    ${accountId ? sql`union select phone_key from blacklist
      where user_id = ${userId} and account_id = ${accountId} and phone_key in ${wanted}` : sql``}`);
  return new Set(found.map((r) => r.phone_key));
}
