import { sql } from 'drizzle-orm';
import type { ContactFilter } from '@masivo/contract/contact-filter';
import type { Db } from '../../db/client';
import { contactFilterSql } from '../contacts/filter-engine';
import { rowsOf } from '../../db/sql';
import { skipUsMarketing } from './us-marketing';
import { assignRecipientZones } from './recipient-zones-freeze';

export const NO_VALID_PHONE = 'Sin número de teléfono válido';
export const DUPLICATE_PHONE = 'Número repetido: ya lo recibe otro contacto de la campaña';

/**
 * lib/phone.ts phoneKey in SQL: the digits of the E.164 number with the mobile token that
 * WhatsApp ids drop (AR 9, MX 1) folded, so one person is one recipient in any format.
 */
const PHONE_KEY = sql.raw(`case
    when p.digits ~ '^549[0-9]{10}$' then '54' || substr(p.digits, 4)
    when p.digits ~ '^521[0-9]{10}$' then '52' || substr(p.digits, 4)
    else p.digits end`);

/** lib/bsuid.ts in SQL: a Kommo phone field holding a BSUID makes the contact reachable by it. */
const BSUID_RAW = sql.raw(`case when c.phone is null and btrim(c.phone_raw) ~ '^[A-Z]{2}[.](ENT[.])?[A-Za-z0-9]{1,64}$' then btrim(c.phone_raw) end`);

export interface FreezeResult {
  total: number;
  pending: number;
  skipped: number;
}

/**
 * Turns the campaign's filter into recipient rows in ONE set-based statement (no rows travel
 * through Node): one row per matching contact; contacts without a valid E.164 phone and
 * second contacts with the same number are recorded as skipped with the reason. The
 * campaign's counters are set in the same statement. Run inside the start transaction.
 */
export async function freezeAudience(
  db: Db,
  campaign: { id: number; userId: number; kommoAccountId: number; filters: ContactFilter },
): Promise<FreezeResult> {
  const where = contactFilterSql({ userId: campaign.userId, accountId: campaign.kommoAccountId, filter: campaign.filters });
  const [row] = await rowsOf<{ total: number; pending: number; skipped: number }>(
    db,
    sql`with audience as (
      select c.id as contact_id, coalesce(c.phone, ${BSUID_RAW}) as phone,
        coalesce(case when c.phone ~ '^\\+[1-9][0-9]{6,14}$' then ${PHONE_KEY} end, ${BSUID_RAW}) as phone_key,
        ${BSUID_RAW} as bsuid
      from contacts c
      cross join lateral (select regexp_replace(coalesce(c.phone, ''), '[^0-9]', '', 'g') as digits) p
      where ${where}
    ),
    ranked as (
      select a.*, row_number() over (partition by a.phone_key order by a.contact_id) as n,
        coalesce(a.bsuid, cb.bsuid) as known_bsuid
      from audience a left join contact_bsuids cb on cb.user_id = ${campaign.userId}::int and cb.phone_key = a.phone_key
    ),
    ins as (
      insert into campaign_recipients (campaign_id, user_id, contact_id, phone, phone_key, status, error_message, bsuid)
      select ${campaign.id}, ${campaign.userId}::int, contact_id, phone,
        case when phone_key is not null and n = 1 then phone_key end,
        case when phone_key is not null and n = 1 then 'pending' else 'skipped' end,
        case when phone_key is null then ${NO_VALID_PHONE}::text when n > 1 then ${DUPLICATE_PHONE}::text end,
        known_bsuid
      from ranked
      returning status
    ),
    totals as (
      select count(*)::int as total,
        (count(*) filter (where status = 'pending'))::int as pending,
        (count(*) filter (where status = 'skipped'))::int as skipped
      from ins
    ),
    counted as (
      update campaigns set total_recipients = t.total, pending_count = t.pending, skipped_count = t.skipped,
        audience_frozen_at = now(), updated_at = now()
      from totals t where campaigns.id = ${campaign.id}
      returning campaigns.id
    )
    select t.total, t.pending, t.skipped from totals t`,
  );
  const usSkipped = await skipUsMarketing(db, campaign.id);
  await assignRecipientZones(db, campaign.id);
  return { total: Number(row?.total ?? 0), pending: Number(row?.pending ?? 0) - usSkipped, skipped: Number(row?.skipped ?? 0) + usSkipped };
}
