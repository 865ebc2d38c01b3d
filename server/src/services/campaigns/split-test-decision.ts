import { sql } from 'drizzle-orm';
import {
  SPLIT_ALPHA,
  SPLIT_MAX_EXTRA_WAIT_SECONDS,
  SPLIT_METRIC_NOUNS,
  SPLIT_MIN_EXPECTED,
  SPLIT_MIN_SENDS_PER_ARM,
  SPLIT_STOPPED_REASON,
  variantLabel,
  type SplitMetric,
  type SplitResult,
} from '@masivo/contract/split-test';
import type { Db } from '../../db/client';
import type { SplitTestConfig } from '../../db/schema/campaigns';
import { isoOf, jsonParam, rowsOf, type Queryable } from '../../db/sql';
import { decideSplit, sampleCheck, type Proportion, type SampleCheck } from '../../lib/stats/two-proportion';
import { allArms, armCounts, successesOf } from './split-test-arms';

/** How many due decisions one scheduler tick takes. */
const DECISIONS_PER_TICK = 20;

/**
 * The scheduler's step for split tests ("Prueba A/B"): every sending campaign whose wait is over
 * and whose test slice has been sent (nothing of it pending or on the wire) is decided. Returns
 * the decided campaigns' ids (their senders re-read them).
 */
export async function decideDueSplitTests(db: Db, now: Date = new Date()): Promise<number[]> {
  const due = await rowsOf<{ id: number }>(
    db,
    sql`select c.id from campaigns c
        where c.split_test is not null and c.split_result is null and c.status = 'sending'
          and c.split_decide_at <= ${now.toISOString()}::timestamptz
          and not exists (select 1 from campaign_recipients r
            where r.campaign_id = c.id and r.variant is not null and r.status in ('pending', 'sending'))
        order by c.split_decide_at limit ${DECISIONS_PER_TICK}`,
  );
  const decided: number[] = [];
  for (const { id } of due) if (await decideSplitTest(db, Number(id), now)) decided.push(Number(id));
  return decided;
}

/**
 * Decides one split test in ONE transaction: the pooled two-proportion z-test at 95 % (each arm
 * against the best, Bonferroni-corrected with three or four arms) over the messages Meta
 * accepted; the result is written once (`split_result is null` is the guard, so a second worker
 * or a re-run changes nothing). With a winner, or without one and `send_best`, every row of the
 * rest gets the winner's arm in one statement and becomes claimable; with `stop` the rest is
 * skipped with the reason, and the campaign completes. Each row had no arm before, so nobody
 * gets two variants. False when another worker decided first.
 */
export async function decideSplitTest(db: Db, campaignId: number, now: Date = new Date()): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [campaign] = await rowsOf<{ split_test: SplitTestConfig | string; decide_at: string | null; extended_until: string | null }>(
      tx,
      sql`select split_test, ${isoOf(sql`split_decide_at`)} as decide_at, ${isoOf(sql`split_extended_until`)} as extended_until
          from campaigns where id = ${campaignId} and split_test is not null and split_result is null for update`,
    );
    if (!campaign) return false;
    const config: SplitTestConfig = typeof campaign.split_test === 'string' ? JSON.parse(campaign.split_test) : campaign.split_test;
    const arms = allArms(await armCounts(tx, campaignId, true), config.variants.length);
    const proportions = arms.map((a) => ({ n: a.sent, x: successesOf(a, config.metric) }));
    const sample = sampleCheck(proportions, SPLIT_MIN_SENDS_PER_ARM, SPLIT_MIN_EXPECTED);
    // Every arm was sent, but its successes are still too few for the z-test: reads, replies and
    // clicks keep arriving, so wait longer (the wait again, at most 24 h), looking again every few
    // minutes. Too few sends cannot grow (the slice was sent): the no-winner rule applies at once.
    if (!sample.sufficient && sample.shortArms.length === 0) {
      const until = campaign.extended_until ? new Date(campaign.extended_until) : extensionEnd(config, campaign.decide_at, now);
      if (now < until) {
        const next = new Date(Math.min(until.getTime(), now.getTime() + SAMPLE_RECHECK_MS));
        await tx.execute(
          sql`update campaigns set split_extended_until = ${until.toISOString()}::timestamptz, split_decide_at = ${next.toISOString()}::timestamptz,
                updated_at = now() where id = ${campaignId}`,
        );
        return false;
      }
    }
    const result = splitResultOf(config, proportions, now, sample);
    await tx.execute(sql`update campaigns set split_result = ${jsonParam(result)}, updated_at = now() where id = ${campaignId}`);
    if (result.winner !== null) {
      const winner = config.variants.findIndex((_, i) => variantLabel(i) === result.winner);
      await tx.execute(
        sql`update campaign_recipients set variant = ${winner}, next_attempt_at = now()
            where campaign_id = ${campaignId} and variant is null and status = 'pending'`,
      );
    } else {
      await stopRest(tx, campaignId);
    }
    return true;
  });
}

/** How often a decision waiting for more successes looks again. */
const SAMPLE_RECHECK_MS = 5 * 60_000;

/** The end of the longer wait: the set wait again after the decision was due, at most 24 h. */
function extensionEnd(config: Pick<SplitTestConfig, 'wait_seconds'>, decideAt: string | null, now: Date): Date {
  const from = decideAt ? new Date(decideAt) : now;
  return new Date(from.getTime() + Math.min(config.wait_seconds, SPLIT_MAX_EXTRA_WAIT_SECONDS) * 1000);
}

/** Why the sample is too small for the z-test, in Spanish (null when it is not). */
export function sampleNoteOf(sample: SampleCheck, metric: SplitMetric, arms: Proportion[]): string | null {
  if (sample.sufficient) return null;
  if (sample.shortArms.length > 0) {
    const short = sample.shortArms.map((i) => `${variantLabel(i)}: ${arms[i]?.n ?? 0}`).join(', ');
    return `Cada variante necesita al menos ${SPLIT_MIN_SENDS_PER_ARM} envíos aceptados por Meta (${short}).`;
  }
  const noun = SPLIT_METRIC_NOUNS[metric];
  return `Para que la prueba z sea válida, cada variante necesita al menos ${SPLIT_MIN_EXPECTED} ${noun} esperadas y ${SPLIT_MIN_EXPECTED} envíos sin ${noun} con la tasa conjunta.`;
}

/** No winner and `stop`: the rest is skipped with the reason, the counters in the same statement. */
async function stopRest(tx: Queryable, campaignId: number) {
  await rowsOf(
    tx,
    sql`with stopped as (
          update campaign_recipients set status = 'skipped', error_message = ${SPLIT_STOPPED_REASON}
          where campaign_id = ${campaignId} and variant is null and status = 'pending'
          returning id
        )
        update campaigns set pending_count = greatest(0, pending_count - (select count(*) from stopped)::int),
          skipped_count = skipped_count + (select count(*) from stopped)::int, updated_at = now()
        where id = ${campaignId} returning id`,
  );
}

const points = (n: number) => n.toLocaleString('es', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
/** p in Spanish: three decimals, or "< 0,001". */
export const formatP = (p: number) => (p < 0.001 ? '< 0,001' : `= ${p.toLocaleString('es', { minimumFractionDigits: 3, maximumFractionDigits: 3 })}`);

/** The decision as stored and shown: "Ganó B (+3,1 pts, p = 0,004)" or "Sin diferencia significativa". */
export function splitResultOf(
  config: Pick<SplitTestConfig, 'no_winner' | 'variants'> & { metric?: SplitMetric },
  arms: Array<{ n: number; x: number }>,
  at: Date,
  sample: SampleCheck = sampleCheck(arms, SPLIT_MIN_SENDS_PER_ARM, SPLIT_MIN_EXPECTED),
): SplitResult {
  const d = decideSplit(arms, SPLIT_ALPHA);
  // Too small a sample for the z-test: no winner, whatever the p-value says.
  const insufficient = !sample.sufficient && d.best !== null;
  const best = d.best === null ? null : variantLabel(d.best);
  const detail = d.liftPoints !== null && d.p !== null ? ` (+${points(d.liftPoints)} pts, p ${formatP(d.p)})` : '';
  let outcome: SplitResult['outcome'];
  let winner: string | null;
  let summary: string;
  if (d.significant && best && !insufficient) {
    outcome = 'winner';
    winner = best;
    summary = `Ganó ${best}${detail}`;
  } else if (config.no_winner === 'send_best') {
    outcome = 'best';
    // Nothing was sent at all: the first variant goes to the rest.
    winner = best ?? variantLabel(0);
    summary = insufficient ? 'Muestra insuficiente' : 'Sin diferencia significativa';
  } else {
    outcome = 'stopped';
    winner = null;
    summary = insufficient ? 'Muestra insuficiente' : 'Sin diferencia significativa';
  }
  return {
    outcome,
    winner,
    best,
    lift_points: d.liftPoints,
    p_value: d.p,
    z: d.z,
    significant: d.significant && !insufficient,
    summary,
    insufficient_sample: insufficient,
    sample_note: insufficient ? sampleNoteOf(sample, config.metric ?? 'read', arms) : null,
    decided_at: at.toISOString(),
    test_arms: arms.map((a, i) => ({ variant: variantLabel(i), sent: a.n, successes: a.x })),
  };
}
