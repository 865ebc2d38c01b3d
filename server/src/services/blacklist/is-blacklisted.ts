import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';

/**
 * Which of these phone keys (lib/phone.ts phoneKey) the account's blacklist holds. The campaign
 * sender asks right before sending, so a number blocked after the audience was drawn is still skipped.
 */
export async function blacklistedKeys(db: Db, userId: number, accountId: number, keys: string[]): Promise<Set<string>> {
  const unique = [...new Set(keys.filter(Boolean))];
  if (unique.length === 0) return new Set();
  const res = (await db.execute(sql`
    select phone_key from blacklist
    where user_id = ${userId} and account_id = ${accountId}
      and phone_key in (select jsonb_array_elements_text(${JSON.stringify(unique)}::jsonb))`)) as unknown as {
    rows: { phone_key: string }[];
  };
  return new Set(res.rows.map((r) => r.phone_key));
}
