import { sql, type SQL } from 'drizzle-orm';

/**
 * What the charts' rollups are folded against (services/campaigns/campaign-rollups.ts), on the
 * floor both the job and the scrape's gauges (db/ops-state.ts) read from.
 */

/** The job's name, its row in `job_schedules` and in `campaign_rollup_passes`. */
export const ROLLUP_JOB = 'campaign-rollups';

/**
 * What the writers change with every recipient transition, as one text: a campaign whose mark
 * differs from the one its rollup was folded at has recipients that moved since. `updated_at`
 * alone would do for deliveries (every transition statement sets it); the counters cover the
 * writers that only bump theirs (replies, the freeze's totals).
 */
export const changeMark = (c: SQL) => sql`concat_ws('|', (extract(epoch from ${c}.updated_at) * 1000000)::bigint, ${c}.status,
  ${c}.total_recipients, ${c}.messages_sent, ${c}.delivered_count, ${c}.read_count, ${c}.failed_count, ${c}.skipped_count,
  ${c}.unknown_count, ${c}.pending_count, ${c}.deferred_count, ${c}.expired_count, ${c}.replied_count)`;
