import { sql, type SQL } from 'drizzle-orm';
import { rowsOf, type Queryable } from '../../db/sql';

/**
 * A number Meta restricted. In a several-number campaign it takes no new people and its lane
 * stops (`laneBlockedSql` in campaign-numbers.ts reads it, as it reads RED and a switched-off
 * number); its people keep their number and wait, and the campaign screen shows how many and why.
 * A one-number campaign is paused instead, as before. Sources:
 * - Meta's `account_update` ACCOUNT_RESTRICTION or ban of the number's WABA (account-update.ts):
 *   until the restriction's `expiration`, or until Meta reinstates the WABA;
 * - a send Meta refused for the number itself (131031 account locked, 131048 spam rate limit):
 *   for an hour, then the lane sends again and the first refusal restricts it once more (Meta
 *   says no end time for these, so the number is tried again hourly rather than never).
 */

/** Send refusals that restrict the number (send-errors.ts classes them account-wide). */
export const SEND_RESTRICTION_CODES: ReadonlySet<number> = new Set([131031, 131048]);
/** How long a send refusal keeps the number out before a send tries again. */
export const SEND_RESTRICTION_MS = 60 * 60_000;

/** True while the number (alias `a`) is restricted: SQL for the lane's and the freeze's checks. */
export const restrictedNowSql = (a: string): string =>
  `(${a}.restricted_at is not null and (${a}.restricted_until is null or ${a}.restricted_until > now()))`;

/** Restricts the numbers `where` names (an SQL condition on whatsapp_accounts); returns their ids. */
async function restrict(db: Queryable, where: SQL, reason: string, until: Date | null): Promise<number[]> {
  const rows = await rowsOf<{ id: number }>(
    db,
    sql`update whatsapp_accounts set
          restricted_at = case when ${sql.raw(restrictedNowSql('whatsapp_accounts'))} then restricted_at else now() end,
          restricted_until = ${until ? until.toISOString() : null}::timestamptz,
          restricted_reason = ${reason.slice(0, 500)}, updated_at = now()
        where ${where} returning id`,
  );
  return rows.map((r) => Number(r.id));
}

/** Meta restricted or banned a WABA: every verified number of it is restricted. */
export function restrictWabaNumbers(db: Queryable, wabaId: string, reason: string, until: Date | null): Promise<number[]> {
  return restrict(db, sql`business_account_id = ${wabaId} and owner_verified_at is not null`, reason, until);
}

/** Meta reinstated a WABA: its numbers' restrictions are lifted. */
export async function liftWabaRestriction(db: Queryable, wabaId: string): Promise<number[]> {
  const rows = await rowsOf<{ id: number }>(
    db,
    sql`update whatsapp_accounts set restricted_at = null, restricted_until = null, restricted_reason = null, updated_at = now()
        where business_account_id = ${wabaId} and restricted_at is not null returning id`,
  );
  return rows.map((r) => Number(r.id));
}

/**
 * A send from this number was refused for a systemic reason: a restriction code restricts the
 * number for an hour (the pause of its one-number campaigns happens as before). False otherwise.
 */
export async function restrictAfterSendRefusal(db: Queryable, accountId: number, code: number | null | undefined, reason: string, now = new Date()): Promise<boolean> {
  if (code === null || code === undefined || !SEND_RESTRICTION_CODES.has(code)) return false;
  await restrict(db, sql`id = ${accountId}`, reason, new Date(now.getTime() + SEND_RESTRICTION_MS));
  return true;
}
