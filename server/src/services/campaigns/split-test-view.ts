import { sql } from 'drizzle-orm';
import { SPLIT_METRIC_LABELS, SPLIT_MIN_EXPECTED, SPLIT_MIN_SENDS_PER_ARM, variantLabel, type SplitTestView } from '@masivo/contract/split-test';
import type { Db } from '../../db/client';
import type { SplitTestConfig } from '../../db/schema/campaigns';
import type { SplitResult } from '@masivo/contract/split-test';
import { rowsOf } from '../../db/sql';
import { sampleCheck, wilsonInterval } from '../../lib/stats/two-proportion';
import { sampleNoteOf } from './split-test-decision';
import { costPerVariant } from './campaign-cost';
import { allArms, armCounts, successesOf } from './split-test-arms';

/**
 * The detail screen's split test: each arm's counts, its metric's rate with the 95 % interval,
 * the recipients still waiting for the winner, and the decision once taken.
 */
export async function splitTestView(
  db: Db,
  userId: number,
  row: { id: number; splitTest: SplitTestConfig | null; splitDecideAt: Date | null; splitResult: SplitResult | null; splitExtendedUntil?: Date | null },
): Promise<SplitTestView | null> {
  const config = row.splitTest;
  if (!config) return null;
  const arms = allArms(await armCounts(db, row.id, true), config.variants.length);
  const costs = await costPerVariant(db, userId, row.id);
  const [waiting] = await rowsOf<{ n: number }>(
    db,
    sql`select count(*)::int as n from campaign_recipients where campaign_id = ${row.id} and variant is null and status = 'pending'`,
  );
  // Before the decision the arms are the test slice: is it large enough for the z-test yet?
  const proportions = arms.map((a) => ({ n: a.sent, x: successesOf(a, config.metric) }));
  const sample = sampleCheck(proportions, SPLIT_MIN_SENDS_PER_ARM, SPLIT_MIN_EXPECTED);
  const decided = row.splitResult ?? null;
  return {
    sample: {
      min_sends: SPLIT_MIN_SENDS_PER_ARM,
      min_expected: SPLIT_MIN_EXPECTED,
      sufficient: decided ? !decided.insufficient_sample : sample.sufficient,
      note: decided ? (decided.sample_note ?? null) : sampleNoteOf(sample, config.metric, proportions),
      extended_until: row.splitExtendedUntil ? new Date(row.splitExtendedUntil).toISOString() : null,
    },
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
