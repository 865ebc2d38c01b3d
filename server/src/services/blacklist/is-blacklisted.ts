import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { rowsOf } from '../../db/sql';

/**
 * Which of these keys (lib/phone.ts phoneKey, or a BSUID for people known only by it) must not
 * be messaged: those in the Kommo account's blacklist, and those who opted out of any of the
 * tenant's numbers (kept per tenant, so they hold whatever the campaign's Kommo account, and
 * even when it has none). A person is matched by phone OR BSUID: an entry made from a username
 * user's message (BSUID only) blocks the phone the tenant learned for that BSUID
 * (contact_bsuids), and the other way round. The campaign sender asks right before sending, so
 * a number blocked after the audience was drawn is skipped.
 */
export async function blacklistedKeys(db: Db, userId: number, accountId: number | null, keys: string[]): Promise<Set<string>> {
  const unique = [...new Set(keys.filter(Boolean))];
  if (unique.length === 0) return new Set();
  const found = await rowsOf<{ phone_key: string }>(db, blacklistedKeysSql(userId, accountId, unique));
  return new Set(found.map((r) => r.phone_key));
}

/**
 * The rows (`phone_key`) of blacklistedKeys, for a statement that asks more at once. `accountId`
 * 'all': every blacklist of the tenant (a campaign with explicit recipients has no Kommo account,
 * so no blacklist of the tenant may be passed over).
 */
export function blacklistedKeysSql(userId: number, accountId: number | null | 'all', unique: string[]): SQL {
  const wanted = sql`(select jsonb_array_elements_text(${JSON.stringify(unique)}::jsonb))`;
  return sql`
    with ids(k, id) as (
      select k, k from ${wanted} as w(k)
      union select cb.phone_key, cb.bsuid from contact_bsuids cb where cb.user_id = ${userId} and cb.phone_key in ${wanted}
      union select cb.bsuid, cb.phone_key from contact_bsuids cb where cb.user_id = ${userId} and cb.bsuid in ${wanted}
    )
    select distinct ids.k as phone_key from ids
    where exists (select 1 from opt_outs o where o.user_id = ${userId} and (o.phone_key = ids.id or o.bsuid = ids.id))
    ${accountId === 'all'
      ? sql`or exists (select 1 from blacklist b where b.user_id = ${userId} and (b.phone_key = ids.id or b.bsuid = ids.id))`
      : accountId
        ? sql`or exists (select 1 from blacklist b where b.user_id = ${userId} and b.account_id = ${accountId}
      and (b.phone_key = ids.id or b.bsuid = ids.id))`
        : sql``}`;
}
