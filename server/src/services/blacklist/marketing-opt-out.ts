import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { jsonParam, rowsOf } from '../../db/sql';
import { MARKETING_STOP_REASON, addOptOuts, removeOptOuts, type OptOutEntry } from './origins';
import { numberOwners, personOf } from './opt-out';

/**
 * The person stopped (or resumed) marketing messages from the business in WhatsApp. A stop
 * reaches us two ways: the user_preferences webhook, and error 131050 on a send (synchronous or
 * in a failed status). Both put the person on the tenant's blacklist with origin
 * 'meta_marketing'; a «resume» lifts only entries of that origin.
 */

export interface PreferenceChange {
  phoneNumberId: string;
  wabaId: string;
  /** `wa_id` (may be absent for username users). */
  waId: string;
  /** `user_id` (BSUID), when sent. */
  userId: string | null;
  value: 'stop' | 'resume';
}

export async function applyMarketingPreference(db: Db, p: PreferenceChange): Promise<number> {
  const person = personOf(p.waId, p.userId);
  if (!person) return 0;
  const owners = await numberOwners(db, p.phoneNumberId, p.wabaId);
  if (p.value === 'resume') {
    return removeOptOuts(db, owners.map((o) => o.userId), [person.key, person.bsuid ?? ''], 'meta_marketing');
  }
  return addOptOuts(
    db,
    owners.map((o) => ({ ...o, ...person, word: 'marketing_messages: stop', origin: 'meta_marketing', reason: MARKETING_STOP_REASON })),
  );
}

/**
 * 131050 on these campaign recipients: their people go on their tenant's blacklist. Works from
 * the recipient rows (phone key, or BSUID for recipients sent by BSUID), so it needs no webhook
 * routing: the row already names the tenant.
 */
export async function blacklistStoppedRecipients(db: Db, recipientIds: number[]): Promise<number> {
  if (!recipientIds.length) return 0;
  const rows = await rowsOf<{ user_id: number; phone: string | null; phone_key: string | null; bsuid: string | null; wa: number | null }>(
    db,
    sql`select r.user_id, r.phone, r.phone_key, r.bsuid, c.whatsapp_account_id as wa
        from campaign_recipients r join campaigns c on c.id = r.campaign_id
        where r.id = any(array(select (jsonb_array_elements_text(${jsonParam(recipientIds)}))::bigint))`,
  );
  const entries: OptOutEntry[] = [];
  for (const r of rows) {
    const key = r.phone_key ?? r.bsuid;
    if (!key) continue;
    entries.push({
      userId: Number(r.user_id),
      key,
      phone: r.phone ?? r.bsuid ?? key,
      bsuid: r.bsuid,
      whatsappAccountId: r.wa === null ? null : Number(r.wa),
      word: 'error 131050',
      origin: 'meta_marketing',
      reason: MARKETING_STOP_REASON,
    });
  }
  return addOptOuts(db, entries);
}
