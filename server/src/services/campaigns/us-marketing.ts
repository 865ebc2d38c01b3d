import { sql } from 'drizzle-orm';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import type { Db } from '../../db/client';
import { jsonParam, rowsOf } from '../../db/sql';

/** Meta does not deliver marketing templates to United States numbers. */
export const US_MARKETING = 'EE.UU. (marketing)';

/**
 * When a MARKETING campaign's audience is frozen, its United States numbers (+1 whose
 * country is the US; Canada, Puerto Rico and the other +1 countries are kept) become skipped
 * with the reason, and the counters move with them. Run inside the freeze transaction.
 */
export async function skipUsMarketing(db: Db, campaignId: number): Promise<number> {
  const [template] = await rowsOf<{ category: string | null }>(
    db,
    sql`select t.category from campaigns c join templates t on t.id = c.template_id where c.id = ${campaignId}`,
  );
  if ((template?.category ?? '').toUpperCase() !== 'MARKETING') return 0;
  const plusOne = await rowsOf<{ id: number | string; phone: string }>(
    db,
    sql`select id, phone from campaign_recipients where campaign_id = ${campaignId} and status = 'pending' and phone like '+1%'`,
  );
  const ids = plusOne.filter((r) => parsePhoneNumberFromString(r.phone)?.country === 'US').map((r) => Number(r.id));
  if (!ids.length) return 0;
  const [row] = await rowsOf<{ n: number }>(
    db,
    sql`with skipped as (
          update campaign_recipients set status = 'skipped', error_message = ${US_MARKETING}
          where campaign_id = ${campaignId} and status = 'pending'
            and id = any(array(select (jsonb_array_elements_text(${jsonParam(ids)}))::bigint))
          returning 1
        ),
        counted as (
          update campaigns set pending_count = pending_count - (select count(*) from skipped),
            skipped_count = skipped_count + (select count(*) from skipped), updated_at = now()
          where id = ${campaignId}
          returning 1
        )
        select (select count(*) from skipped)::int as n, (select count(*) from counted)::int as c`,
  );
  return Number(row?.n ?? 0);
}
