import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { jsonParam, rowsOf } from '../../db/sql';
import type { ButtonPayload } from './button-payload';
import type { InboundText } from '../../services/campaigns/inbound-text';

/**
 * The tenant a quick-reply tap opts out of, or null. The payload must carry our signature
 * (anyone can send a webhook-shaped text, nobody else can sign a payload), the tap must come
 * to the number the campaign sent from, and the operator must have marked that button «Baja»
 * on the campaign's template.
 */
export async function optOutButtonTenant(db: Db, payloads: ButtonPayload, m: InboundText): Promise<number | null> {
  const target = payloads.verify(m.buttonPayload);
  if (!target) return null;
  const [row] = await rowsOf<{ user_id: number | string }>(
    db,
    sql`select c.user_id from campaigns c
        join templates t on t.id = c.template_id and t.user_id = c.user_id
        -- The campaign's number, or any of its numbers when it sends from several.
        join whatsapp_accounts wa on wa.user_id = c.user_id and (wa.id = c.whatsapp_account_id
          or exists (select 1 from campaign_numbers n where n.campaign_id = c.id and n.whatsapp_account_id = wa.id))
        where c.id = ${target.campaignId}
          and wa.phone_number_id = ${m.phoneNumberId} and wa.business_account_id = ${m.wabaId}
          and t.opt_out_buttons @> ${jsonParam([target.index])}`,
  );
  return row ? Number(row.user_id) : null;
}
