import { sql } from 'drizzle-orm';
import { SPLIT_ALPHA, SPLIT_STOPPED_REASON, variantLabel, type SplitResult } from '@masivo/contract/split-test';
import type { Db } from '../../db/client';
import type { SplitTestConfig } from '../../db/schema/campaigns';
import { jsonParam, rowsOf, type Queryable } from '../../db/sql';
import { decideSplit } from '../../lib/stats/two-proportion';
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
  for (const { id } of due) if (await decideSplitTest(db, Number(id))) decided.push(Number(id));
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
export async function decideSplitTest(db: Db, campaignId: number): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [campaign] = await rowsOf<{ split_test: SplitTestConfig | string }>(
      tx,
      sql`select split_test from campaigns where id = ${campaignId} and split_test is not null and split_result is null for update`,
    );
    if (!campaign) return false;
    const config: SplitTestConfig = typeof campaign.split_test === 'string' ? JSON.parse(campaign.split_test) : campaign.split_test;
    const arms = allArms(await armCounts(tx, campaignId, true), config.variants.length);
    const result = splitResultOf(config, arms.map((a) => ({ n: a.sent, x: successesOf(a, config.metric) })), new Date());
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
export function splitResultOf(config: Pick<SplitTestConfig, 'no_winner' | 'variants'>, arms: Array<{ n: number; x: number }>, at: Date): SplitResult {
  const d = decideSplit(arms, SPLIT_ALPHA);
  const best = d.best === null ? null : variantLabel(d.best);
  const detail = d.liftPoints !== null && d.p !== null ? ` (+${points(d.liftPoints)} pts, p ${formatP(d.p)})` : '';
  let outcome: SplitResult['outcome'];
  let winner: string | null;
  let summary: string;
  if (d.significant && best) {
    outcome = 'winner';
    winner = best;
    summary = `Ganó ${best}${detail}`;
  } else if (config.no_winner === 'send_best') {
    outcome = 'best';
    // Nothing was sent at all: the first variant goes to the rest.
    winner = best ?? variantLabel(0);
    summary = 'Sin diferencia significativa';
  } else {
    outcome = 'stopped';
    winner = null;
    summary = 'Sin diferencia significativa';
  }
  return {
    outcome,
    winner,
    best,
    lift_points: d.liftPoints,
    p_value: d.p,
    z: d.z,
    significant: d.significant,
    summary,
    decided_at: at.toISOString(),
    test_arms: arms.map((a, i) => ({ variant: variantLabel(i), sent: a.n, successes: a.x })),
  };
}
