import { sql } from 'drizzle-orm';
import type { DashboardPending } from '@masivo/contract/stats';
import type { Db } from '../../db/client';
import { intArray, rowsOf } from '../../db/sql';

/**
 * "Mensajes Pendientes": the spec's Σ over sending campaigns of total_recipients −
 * messages_sent, plus the deferred recipients (Meta's marketing limit, 131049) whose retry
 * comes by itself: those of sending and completed campaigns (a paused one waits for
 * "Iniciar", as its other messages do). A deferred row of a sending campaign that Meta never
 * accepted (no sent_at) is already inside total − sent, so it is not added twice.
 * Reads the campaign counters, and recipient rows only of campaigns whose deferred_count is
 * above zero (campaign_recipients_campaign_status_idx).
 */
export async function dashboardPending(db: Db, userId: number, numbers: readonly number[] | null = null): Promise<DashboardPending> {
  // A scoped member counts only the campaigns of their numbers.
  const inScope = numbers ? sql`and whatsapp_account_id = any(${intArray(numbers)})` : sql``;
  const [row] = await rowsOf<{ remaining: number | string; deferred: number | string; extra: number | string }>(
    db,
    sql`with waiting as (
          select id, status from campaigns
          where user_id = ${userId} and status in ('sending', 'completed') and deferred_count > 0 ${inScope}
        )
        select
          (select coalesce(sum(greatest(total_recipients - messages_sent, 0)), 0) from campaigns
            where user_id = ${userId} and status = 'sending' ${inScope})::bigint as remaining,
          count(r.id)::bigint as deferred,
          count(r.id) filter (where w.status <> 'sending' or r.sent_at is not null)::bigint as extra
        from waiting w
        join campaign_recipients r on r.campaign_id = w.id and r.status = 'deferred' and r.user_id = ${userId}`,
  );
  const remaining = Number(row?.remaining ?? 0);
  return { pending_messages: remaining + Number(row?.extra ?? 0), deferred: Number(row?.deferred ?? 0) };
}
