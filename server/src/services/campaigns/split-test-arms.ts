import { sql } from 'drizzle-orm';
import type { SplitMetric } from '@masivo/contract/split-test';
import type { Queryable } from '../../db/sql';
import { rowsOf } from '../../db/sql';

/** One arm's figures: recipients, accepted sends and what their people did. */
export interface ArmCounts {
  variant: number;
  recipients: number;
  sent: number;
  delivered: number;
  read: number;
  replied: number;
  tapped: number;
  /** People who clicked a link (Marketing Messages API `clicked_at`); null when not asked for. */
  clicked: number | null;
  /** Sends that went by the Marketing Messages API, the only route whose clicks Meta reports. */
  marketingRoute: number;
}

/** Every arm's figures in ONE grouped statement (rows without an arm are left out). */
export async function armCounts(db: Queryable, campaignId: number, clicks: boolean): Promise<ArmCounts[]> {
  const rows = await rowsOf<Record<string, number | string | null>>(
    db,
    sql`select variant, count(*)::int as recipients,
          (count(*) filter (where sent_at is not null))::int as sent,
          (count(*) filter (where sent_at is not null and (delivered_at is not null or read_at is not null)))::int as delivered,
          (count(*) filter (where sent_at is not null and read_at is not null))::int as read,
          (count(*) filter (where sent_at is not null and replied_at is not null))::int as replied,
          (count(*) filter (where sent_at is not null and button_tapped is not null))::int as tapped,
          ${clicks ? sql`(count(*) filter (where sent_at is not null and clicked_at is not null))::int` : sql`null::int`} as clicked,
          (count(*) filter (where route = 'marketing_messages'))::int as marketing_route
        from campaign_recipients where campaign_id = ${campaignId} and variant is not null
        group by variant order by variant`,
  );
  return rows.map((r) => ({
    variant: Number(r.variant),
    recipients: Number(r.recipients),
    sent: Number(r.sent),
    delivered: Number(r.delivered),
    read: Number(r.read),
    replied: Number(r.replied),
    tapped: Number(r.tapped),
    clicked: r.clicked === null ? null : Number(r.clicked),
    marketingRoute: Number(r.marketing_route),
  }));
}

/** The metric's successes in an arm. */
export function successesOf(arm: ArmCounts, metric: SplitMetric): number {
  switch (metric) {
    case 'read':
      return arm.read;
    case 'reply':
      return arm.replied;
    case 'tap':
      return arm.tapped;
    case 'click':
      return arm.clicked ?? 0;
  }
}

/** The arms of a split test with `count` variants, in order, empty ones included. */
export function allArms(counts: ArmCounts[], count: number): ArmCounts[] {
  return Array.from(
    { length: count },
    (_, i) => counts.find((c) => c.variant === i) ?? { variant: i, recipients: 0, sent: 0, delivered: 0, read: 0, replied: 0, tapped: 0, clicked: null, marketingRoute: 0 },
  );
}
