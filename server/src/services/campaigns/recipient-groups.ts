import { sql, type SQL } from 'drizzle-orm';
import type { RecipientGroupQuery } from '@masivo/contract/campaigns';
import { badRequest } from '../../lib/errors';
import { MARKETING_STOPPED } from '../../integrations/whatsapp/send-errors';

/**
 * Meta errors a new attempt cannot overcome: the number is not on WhatsApp or cannot receive
 * (131026), it is the sender itself (131021), the person stopped marketing messages (131050).
 * Every other failure is worth a follow-up.
 */
export const PERMANENT_FAILURE_CODES: readonly number[] = [131026, 131021, MARKETING_STOPPED];

/** Statuses of a recipient whose message Meta accepted. */
const SENT_STATUSES = sql`('sent', 'delivered', 'read')`;

/**
 * The SQL condition on campaign_recipients `r` for a group (see RECIPIENT_GROUPS in the contract),
 * or null when no group is asked for. `now` is a parameter so tests and the export agree on it.
 */
export function recipientGroupWhere(q: RecipientGroupQuery, now: Date = new Date()): SQL | null {
  switch (q.group) {
    case undefined:
      return null;
    case 'replied':
      return sql`r.replied_at is not null`;
    case 'not_replied':
      return sql`r.replied_at is null and r.status in ${SENT_STATUSES}`;
    case 'read_not_replied':
      return sql`r.replied_at is null and r.status = 'read'`;
    case 'unread': {
      const hours = q.hours ?? 24;
      const before = new Date(now.getTime() - hours * 3_600_000);
      return sql`r.status in ('sent', 'delivered') and r.sent_at <= ${before.toISOString()}::timestamptz`;
    }
    case 'failed_retryable':
      return sql`r.status = 'failed' and (r.error_code is null or r.error_code not in (${sql.join(
        PERMANENT_FAILURE_CODES.map((c) => sql`${c}`),
        sql`, `,
      )}))`;
    case 'tapped':
      if (!q.button) throw badRequest('Indica el botón');
      return sql`exists (select 1 from inbound_messages m
                          where m.campaign_id = r.campaign_id and m.recipient_id = r.id
                            and m.type in ('button', 'interactive') and m.body = ${q.button})`;
  }
}
