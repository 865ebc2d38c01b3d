import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { jsonParam, preparedRows } from '../../db/sql';
import { MARKETING_STOPPED } from '../../integrations/whatsapp/send-errors';
import { toBsuid } from '../../lib/bsuid';
import { blacklistStoppedRecipients } from '../../services/blacklist/marketing-opt-out';
import { learnBsuids } from '../../services/contacts/contact-bsuids';
import { recordMetaEvents } from './meta-events';
import type { StatusUpdate } from './webhook-payload';

/** Unmatched statuses recorded per batch at most (the raw POST was already accepted and answered). */
const MAX_UNMATCHED_RECORDED = 100;

/**
 * What a matched status carries besides its delivery fact: Meta's `pricing` (kept per
 * recipient: category, type, pricing model; a later status with pricing overrides an earlier
 * one's; a status that repeats what the row holds writes nothing), the recipient's BSUID (`recipient_user_id`, learned for the tenant when the status
 * also names the phone), and error 131050 (the person stopped marketing: blacklisted).
 * Statuses that matched no recipient are recorded and change nothing.
 */
export async function applyStatusExtras(
  db: Db,
  matched: Array<{ recipientId: number; status: StatusUpdate }>,
  unmatched: StatusUpdate[],
): Promise<void> {
  const priced = new Map<number, { id: number; category: string | null; type: string | null; model: string | null; bsuid: string | null }>();
  const stopped: number[] = [];
  for (const { recipientId, status } of matched) {
    const bsuid = toBsuid(status.recipientUserId);
    if (status.pricing || bsuid) {
      const prev = priced.get(recipientId);
      priced.set(recipientId, {
        id: recipientId,
        category: status.pricing?.category ?? prev?.category ?? null,
        type: status.pricing?.type ?? prev?.type ?? null,
        model: status.pricing?.model ?? prev?.model ?? null,
        bsuid: bsuid ?? prev?.bsuid ?? null,
      });
    }
    if (status.status === 'failed' && status.error?.code === MARKETING_STOPPED) stopped.push(recipientId);
  }
  if (priced.size) {
    const learned = await preparedRows<{ user_id: number; phone_key: string | null; bsuid: string | null }>(
      db,
      sql`with v as (
            select * from jsonb_to_recordset(${jsonParam([...priced.values()])})
              as v(id bigint, category text, type text, model text, bsuid text)
          )
          update campaign_recipients r set
            pricing_category = coalesce(v.category, r.pricing_category),
            pricing_type = coalesce(v.type, r.pricing_type),
            pricing_model = coalesce(v.model, r.pricing_model),
            bsuid = coalesce(v.bsuid, r.bsuid)
          from v where r.id = any(array(select id from v)) and r.id = v.id
            -- Meta repeats the pricing in every status (sent, delivered, read): only the first
            -- one that brings something new writes a row version.
            and (r.pricing_category, r.pricing_type, r.pricing_model, r.bsuid) is distinct from
                (coalesce(v.category, r.pricing_category), coalesce(v.type, r.pricing_type),
                 coalesce(v.model, r.pricing_model), coalesce(v.bsuid, r.bsuid))
          returning r.user_id, r.phone_key, v.bsuid`,
    );
    await learnBsuids(
      db,
      learned
        .filter((r) => r.bsuid && r.phone_key)
        .map((r) => ({ userId: Number(r.user_id), phoneKey: r.phone_key!, bsuid: r.bsuid! })),
    );
  }
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
