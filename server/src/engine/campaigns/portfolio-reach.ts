import { sql, type SQL } from 'drizzle-orm';

/**
 * What a claim must respect of the portfolio's messaging limit (see portfolio-budget.ts):
 * the tenant and portfolio whose unique recipients it records, and how many NEW ones (not
 * reached in the last 24 h) it may start; null = no cap (unlimited or unknown limit).
 */
export interface ClaimReach {
  userId: number;
  portfolioId: string;
  maxNew: number | null;
}

/**
 * The `picked` CTE of the claim, from its `candidates` (the next due rows, locked): all of
 * them without a cap; with one, every candidate already reached in the moving 24 h (free)
 * plus the new ones, in order, while they fit.
 */
export function pickWithinBudget(reach: ClaimReach | undefined): SQL {
  if (!reach || reach.maxNew === null) return sql`select id from candidates`;
  return sql`select id from (
      select cd.id, pr.phone_key is null as is_new,
        sum((pr.phone_key is null)::int) over (order by cd.next_attempt_at, cd.id) as new_so_far
      from candidates cd
      left join portfolio_reach pr on pr.user_id = ${reach.userId} and pr.portfolio_id = ${reach.portfolioId}
        and pr.phone_key = cd.phone_key and pr.reached_at > now() - interval '24 hours'
    ) t where not t.is_new or t.new_so_far <= ${reach.maxNew}`;
}

/**
 * A CTE (with its leading comma) stamping the claimed recipients as reached now by the
 * portfolio. The clock time, not the transaction's: a claim that waited for the portfolio's
 * lock stamps after the count it follows (see usedPlaces in portfolio-budget.ts).
 */
export function recordReach(reach: ClaimReach | undefined): SQL {
  if (!reach) return sql``;
  return sql`,
        reached as (
          insert into portfolio_reach (user_id, portfolio_id, phone_key, reached_at)
          select ${reach.userId}::int, ${reach.portfolioId}::text, cl.phone_key, clock_timestamp() from claimed cl where cl.phone_key is not null
          on conflict (user_id, portfolio_id, phone_key) do update set reached_at = excluded.reached_at
        )`;
}
