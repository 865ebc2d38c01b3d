import { sql } from 'drizzle-orm';
import type { AutomationTrigger, AutomationView } from '@masivo/contract/automation-trigger';
import type { Db } from '../../db/client';
import { rowsOf } from '../../db/sql';
import type { CampaignRow } from '../campaigns/campaign-view';

/**
 * The detail screen's figures of an automatic campaign: events received (each is one recipient,
 * so the campaign's total), waiting ones and the next due time, skipped ones by reason. Sent,
 * delivered, read, replies, cost and charts are the campaign's own counters and views.
 */
export async function automationView(db: Db, row: CampaignRow): Promise<AutomationView | null> {
  if (row.audienceKind !== 'automatic' || !row.automationTrigger) return null;
  const trigger = row.automationTrigger as AutomationTrigger;
  const [waiting] = await rowsOf<{ n: number; next: string | null }>(
    db,
    sql`select count(*)::int as n, to_char(min(next_attempt_at) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as next
        from campaign_recipients where campaign_id = ${row.id} and user_id = ${row.userId} and status = 'waiting'`,
  );
  const skipped = await rowsOf<{ reason: string | null; n: number }>(
    db,
    sql`select error_message as reason, count(*)::int as n from campaign_recipients
        where campaign_id = ${row.id} and user_id = ${row.userId} and status = 'skipped'
        group by error_message order by 2 desc, 1`,
  );
  return {
    trigger: {
      pipeline_id: Number(trigger.pipeline_id),
      status_id: Number(trigger.status_id),
      on: trigger.on,
      delay_seconds: Number(trigger.delay_seconds),
      reentry_days: Number(trigger.reentry_days),
    },
    events_received: row.totalRecipients,
    waiting: Number(waiting?.n ?? 0),
    next_due_at: waiting?.next ?? null,
    skipped_by_reason: skipped.map((s) => ({ reason: s.reason ?? 'Omitido', count: Number(s.n) })),
  };
}
