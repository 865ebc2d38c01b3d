import { sql, type SQL } from 'drizzle-orm';

/**
 * What a campaign's cost is counted from, as two grouped reads of its recipients. The campaign
 * screen reads them from the rollups the `campaign-rollups` job folds (campaign-rollups.ts, 0053)
 * and, for a campaign not folded yet, from the recipients with these same statements, so both
 * give the same groups.
 */

/**
 * The delivered messages (Meta charges per delivered message) per what prices them: Meta's
 * `pricing`, the recipient's country or a sample phone to find it (one per 4-digit prefix), the
 * send day, and the split-test arm.
 */
export const deliveredGroupsSql = (campaignId: number, userId: number): SQL => sql`
  select variant, pricing_category as category, pricing_type as type, pricing_model as model, country,
    case when country is null then min(coalesce(phone, bsuid)) end as sample,
    to_char(coalesce(sent_at, delivered_at, read_at) at time zone 'UTC', 'YYYY-MM-DD') as day, count(*)::int as n
  from campaign_recipients
  where campaign_id = ${campaignId} and user_id = ${userId}::int and status in ('delivered', 'read')
  group by 1, 2, 3, 4, 5, 7, case when country is null then left(phone_key, 4) end`;

/** The recipients attempted (every one but the skipped) per country, or a sample phone to find it. */
export const attemptedCountriesSql = (campaignId: number, userId: number): SQL => sql`
  select country, case when country is null then min(coalesce(phone, bsuid)) end as sample, count(*)::int as n
  from campaign_recipients
  where campaign_id = ${campaignId} and user_id = ${userId}::int and status <> 'skipped'
  group by country, case when country is null then left(phone_key, 4) end`;

