/**
 * Two-proportion statistics for the split test ("Prueba A/B"): the pooled z-test, the Wilson
 * interval of one rate, and the decision among two to four arms (each tested against the best,
 * Bonferroni-corrected). Pure functions: no feature, no database.
 */

/** erfc(x), fractional error below 1.2e-7 everywhere (Chebyshev fit, Press et al. §6.2). */
export function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? r : 2 - r;
}

/** P(Z ≤ z) for the standard normal. */
export const normalCdf = (z: number): number => 0.5 * erfc(-z / Math.SQRT2);

/** z of the two-sided 95 % level. */
export const Z_95 = 1.959963984540054;

export interface Proportion {
  /** Trials (messages sent). */
  n: number;
  /** Successes (read, replied, tapped, clicked). */
  x: number;
}

export interface ZTest {
  z: number;
  /** Two-sided p-value. */
  p: number;
}

/**
 * Pooled two-proportion z-test of a against b: p̂ = (x1+x2)/(n1+n2),
 * SE = √(p̂(1−p̂)(1/n1+1/n2)), z = (p1−p2)/SE, p = 2·(1−Φ(|z|)). Identical rates (or an empty
 * arm) give z = 0, p = 1.
 */
export function twoProportionZTest(a: Proportion, b: Proportion): ZTest {
  if (a.n <= 0 || b.n <= 0) return { z: 0, p: 1 };
  const pooled = (a.x + b.x) / (a.n + b.n);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / a.n + 1 / b.n));
  if (!(se > 0)) return { z: 0, p: 1 };
  const z = (a.x / a.n - b.x / b.n) / se;
  return { z, p: Math.min(1, erfc(Math.abs(z) / Math.SQRT2)) };
}

/** The 95 % Wilson score interval of x successes in n trials (null with no trials). */
export function wilsonInterval({ n, x }: Proportion, zc = Z_95): { low: number; high: number } | null {
  if (n <= 0) return null;
  const p = x / n;
  const z2 = zc * zc;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (zc / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

export interface SplitDecision {
  /** Index of the arm with the highest rate (ties: the earlier arm); null when no arm was sent. */
  best: number | null;
  /** The best arm beats every other one at level α after the Bonferroni correction. */
  significant: boolean;
  /** The weakest of the best's comparisons: its corrected p-value and its z (null: nothing to compare). */
  p: number | null;
  z: number | null;
  /** The best arm's rate minus the runner-up's, in percentage points. */
  liftPoints: number | null;
  /** Every comparison of the best against another arm: raw and corrected p-values. */
  comparisons: Array<{ arm: number; z: number; p: number; pAdjusted: number }>;
}

/**
 * Picks the winner of a split test: the arm with the highest rate is tested against each other
 * arm with the pooled z-test; with m = arms − 1 comparisons each p-value is multiplied by m
 * (Bonferroni), and the best wins only if every corrected p-value is below α.
 */
export function decideSplit(arms: Proportion[], alpha = 0.05): SplitDecision {
  const rate = (a: Proportion) => (a.n > 0 ? a.x / a.n : -1);
  let best: number | null = null;
  arms.forEach((a, i) => {
    if (a.n > 0 && (best === null || rate(a) > rate(arms[best]))) best = i;
  });
  if (best === null || arms.length < 2) return { best, significant: false, p: null, z: null, liftPoints: null, comparisons: [] };
  const b = best as number;
  const m = arms.length - 1;
  const comparisons = arms.flatMap((a, i) => {
    if (i === b) return [];
    const t = twoProportionZTest(arms[b], a);
    return [{ arm: i, z: t.z, p: t.p, pAdjusted: Math.min(1, t.p * m) }];
  });
  const weakest = comparisons.reduce((w, c) => (c.pAdjusted > w.pAdjusted || (c.pAdjusted === w.pAdjusted && c.z < w.z) ? c : w));
  const runnerUp = Math.max(...arms.filter((_, i) => i !== b).map((a) => Math.max(0, rate(a))));
  const significant = comparisons.every((c) => c.pAdjusted < alpha && c.z > 0);
  return {
    best: b,
    significant,
    p: weakest.pAdjusted,
    z: weakest.z,
    liftPoints: (rate(arms[b]) - runnerUp) * 100,
    comparisons,
  };
}

export interface SampleCheck {
  /** Every arm meets both conditions: the z-test may declare a winner. */
  sufficient: boolean;
  /** Arms (indexes) with fewer sends than the floor: more time cannot fix it (the slice was sent). */
  shortArms: number[];
  /** Some arm's expected successes or failures under the pooled rate fall short: time may fix it. */
  lowExpected: boolean;
}

/**
 * Whether the pooled two-proportion z-test is valid on these arms. The test treats each arm's
 * rate as normally distributed; that approximation holds when, under the pooled rate p̂, every
 * arm expects at least `minExpected` successes and as many failures (n·p̂ ≥ 5 and n·(1−p̂) ≥ 5, the
 * usual large-sample condition of the two-proportion test). Below it the p-value is not what it
 * claims (too small for rare events: a 0-vs-3 split of 10 sends per arm is "p = 0,02" by the
 * normal curve and p ≈ 0,2 by the exact test), so no winner may be declared. The condition
 * implies at least 2·minExpected sends per arm; `minSends` is that floor, checked separately
 * because sends do not grow once the test slice was sent, while successes (reads, replies,
 * clicks) still do.
 */
export function sampleCheck(arms: Proportion[], minSends: number, minExpected: number): SampleCheck {
  const n = arms.reduce((s, a) => s + a.n, 0);
  const pooled = n > 0 ? arms.reduce((s, a) => s + a.x, 0) / n : 0;
  const shortArms = arms.flatMap((a, i) => (a.n < minSends ? [i] : []));
  const lowExpected = arms.some((a) => a.n * pooled < minExpected || a.n * (1 - pooled) < minExpected);
  return { sufficient: shortArms.length === 0 && !lowExpected && arms.length >= 2, shortArms, lowExpected };
}
