import { sql, type SQL } from 'drizzle-orm';
import { rowsOf, type Queryable } from '../../db/sql';
import { laneBlockedSql } from './campaign-numbers';

/**
 * Which number each person of a several-number campaign is sent from, decided in
 * the freeze's one insert (freeze-audience.ts), never per person in Node:
 *
 * 1. sticky: the campaign's number the person last wrote to (inbound_messages) or was last
 *    sent from (earlier campaigns' recipients a request was made for, even one whose outcome is
 *    unknown; follow-ups included), whatever its health now:
 *    a person never changes number, and waits when that number takes no sends;
 * 2. else a deterministic weighted hash of the phone key over the campaign's healthy numbers
 *    (active, not RED, template copy approved), each weighted by its rate (messages per second),
 *    so the same person lands on the same number again and each number gets a share it can send;
 * 3. no healthy number at all: the template's number (its people wait, and are shown).
 *
 * Null for a one-number campaign: its rows keep `whatsapp_account_id` null.
 */
export interface SenderLanes {
  /** More CTEs, after `classified` (with their leading comma). */
  ctes: SQL;
  /** Replaces `classified` in the insert's FROM: its rows plus `lane`, the number chosen. */
  source: SQL;
}

export async function senderLanesOf(db: Queryable, campaignId: number, userId: number): Promise<SenderLanes | null> {
  const [row] = await rowsOf<{ primary_id: number }>(
    db,
    sql`select c.whatsapp_account_id as primary_id from campaigns c
        where c.id = ${campaignId} and exists (select 1 from campaign_numbers n where n.campaign_id = c.id)`,
  );
  if (!row) return null;
  const primary = Number(row.primary_id);
  return {
    ctes: sql`,
      lane_nums as (
        select a.id, (${laneBlockedSql('a', 'c')}) is null as healthy, greatest(a.rate_per_second, 1)::bigint as w
        from campaign_numbers n join campaigns c on c.id = n.campaign_id join whatsapp_accounts a on a.id = n.whatsapp_account_id
        where n.campaign_id = ${campaignId} and a.user_id = ${userId}::int
      ),
      lane_ranges as (
        select id, sum(w) over (order by id) - w as lo, sum(w) over (order by id) as hi, sum(w) over () as total
        from lane_nums where healthy
      ),
      lane_sticky as (
        select distinct on (h.phone_key) h.phone_key, h.account_id from (
          select i.from_phone_key as phone_key, i.whatsapp_account_id as account_id, i.sent_at as at
          from inbound_messages i
          where i.user_id = ${userId}::int and i.from_phone_key is not null and i.whatsapp_account_id in (select id from lane_nums)
          union all
          -- Every earlier recipient a request was made for (sent, failed, or unknown: it may have arrived).
          select r.phone_key, coalesce(r.whatsapp_account_id, c.whatsapp_account_id), coalesce(r.sent_at, r.failed_at, r.claimed_at, r.next_attempt_at)
          from campaign_recipients r join campaigns c on c.id = r.campaign_id
          where r.user_id = ${userId}::int and r.campaign_id <> ${campaignId} and r.attempts > 0
            and coalesce(r.whatsapp_account_id, c.whatsapp_account_id) in (select id from lane_nums)
        ) h
        where h.phone_key in (select phone_key from classified where reason is null)
        order by h.phone_key, h.at desc
      )`,
    source: sql`(
        select cl.*, case when cl.reason is null then coalesce(ls.account_id, lr.id, ${primary}::int) end as lane
        from classified cl
        left join lane_sticky ls on ls.phone_key = cl.phone_key
        left join lane_ranges lr on cl.reason is null and ls.account_id is null
          and abs(hashtext(cl.phone_key)::bigint) % lr.total >= lr.lo and abs(hashtext(cl.phone_key)::bigint) % lr.total < lr.hi
      ) classified`,
  };
}
