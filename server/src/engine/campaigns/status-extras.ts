import type { Db } from '../../db/client';
import { MARKETING_STOPPED } from '../../integrations/whatsapp/send-errors';
import { toBsuid } from '../../lib/bsuid';
import { blacklistStoppedRecipients } from '../../services/blacklist/marketing-opt-out';
import { learnBsuids, type LearnedBsuid } from '../../services/contacts/contact-bsuids';
import { recordMetaEvents } from './meta-events';
import type { StatusUpdate } from './webhook-payload';
import type { MatchedRow } from './webhook-inbox';

/** Unmatched statuses recorded per batch at most (the raw POST was already accepted and answered). */
const MAX_UNMATCHED_RECORDED = 100;

/**
 * What a matched status carries besides its delivery fact and pricing (both written by
 * applyDeliveryFacts): the recipient's BSUID (`recipient_user_id`), learned for the tenant when
 * the row has a phone and did not know that BSUID yet, and error 131050 (the person stopped
 * marketing: blacklisted). Statuses that matched no recipient are recorded and change nothing.
 */
export async function applyStatusExtras(
  db: Db,
  matched: Array<{ recipientId: number; status: StatusUpdate; row: MatchedRow }>,
  unmatched: StatusUpdate[],
): Promise<void> {
  const learned = new Map<number, LearnedBsuid>();
  const stopped: number[] = [];
  for (const { recipientId, status, row } of matched) {
    const bsuid = toBsuid(status.recipientUserId);
    if (bsuid && row.phoneKey && bsuid !== row.bsuid) learned.set(recipientId, { userId: row.userId, phoneKey: row.phoneKey, bsuid });
    if (status.status === 'failed' && status.error?.code === MARKETING_STOPPED) stopped.push(recipientId);
  }
  if (learned.size) await learnBsuids(db, [...learned.values()]);
  if (stopped.length) await blacklistStoppedRecipients(db, stopped);
  if (unmatched.length) {
    await recordMetaEvents(
      db,
      unmatched.slice(0, MAX_UNMATCHED_RECORDED).map((s) => ({
        field: 'messages.unmatched_status',
        wabaId: s.wabaId ?? '',
        phoneNumberId: s.phoneNumberId || null,
        value: { id: s.wamid, status: s.status, error: s.error, has_callback_data: s.bizOpaque !== null },
        at: new Date(s.at),
      })),
    );
  }
}
