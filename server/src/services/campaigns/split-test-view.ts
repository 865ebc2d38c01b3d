import { sql } from 'drizzle-orm';
import { SPLIT_METRIC_LABELS, variantLabel, type SplitTestView } from '@masivo/contract/split-test';
import type { Db } from '../../db/client';
import type { SplitTestConfig } from '../../db/schema/campaigns';
import type { SplitResult } from '@masivo/contract/split-test';
import { rowsOf } from '../../db/sql';
import { wilsonInterval } from '../../lib/stats/two-proportion';
import { costPerVariant } from './campaign-cost';
import { allArms, armCounts, successesOf } from './split-test-arms';

/**
 * The detail screen's split test: each arm's counts, its metric's rate with the 95 % interval,
 * the recipients still waiting for the winner, and the decision once taken.
 */
export async function splitTestView(
  db: Db,
  userId: number,
  row: { id: number; splitTest: SplitTestConfig | null; splitDecideAt: Date | null; splitResult: SplitResult | null },
): Promise<SplitTestView | null> {
  const config = row.splitTest;
  if (!config) return null;
  const arms = allArms(await armCounts(db, row.id, true), config.variants.length);
  const costs = await costPerVariant(db, userId, row.id);
  const [waiting] = await rowsOf<{ n: number }>(
    db,
    sql`select count(*)::int as n from campaign_recipients where campaign_id = ${row.id} and variant is null and status = 'pending'`,
  );
  return {
    ab_test: { share: config.share, metric: config.metric, wait_seconds: config.wait_seconds, no_winner: config.no_winner },
    metric_label: SPLIT_METRIC_LABELS[config.metric],
    // Meta reports clicks only for the Marketing Messages API (campaign-marketing.ts).
    clicks_unavailable: arms.every((a) => a.marketingRoute === 0 && !a.clicked),
    decide_at: row.splitDecideAt ? new Date(row.splitDecideAt).toISOString() : null,
    waiting: Number(waiting?.n ?? 0),
    arms: arms.map((a, i) => {
      const successes = successesOf(a, config.metric);
      const ci = wilsonInterval({ n: a.sent, x: successes });
      return {
        variant: variantLabel(i),
        template_id: config.variants[i]?.template_id ?? null,
        template_name: config.variants[i]?.template_name ?? '',
        recipients: a.recipients,
        sent: a.sent,
        delivered: a.delivered,
        read: a.read,
        replied: a.replied,
        tapped: a.tapped,
        clicked: a.clicked,
        successes,
        rate: a.sent > 0 ? successes / a.sent : null,
        ci_low: ci?.low ?? null,
        ci_high: ci?.high ?? null,
        cost: costs.get(i) ?? 0,
      };
    }),
    result: row.splitResult ?? null,
  };
}
