import { z } from 'zod';

/**
 * "Prueba A/B" (split test): two to four variants, each a template sent with its own mapping,
 * sharing the campaign's audience, number and schedule. A share of the audience (the test
 * slice) is split evenly among the variants; after the wait a pooled two-proportion z-test
 * (Bonferroni-corrected against the best with three or four variants) picks the winner, which
 * the rest of the audience then gets.
 */
export const SPLIT_METRICS = ['read', 'reply', 'tap', 'click'] as const;
export type SplitMetric = (typeof SPLIT_METRICS)[number];
export const SPLIT_METRIC_LABELS: Record<SplitMetric, string> = {
  read: 'Tasa de lectura',
  reply: 'Tasa de respuesta',
  tap: 'Toques de botón',
  click: 'Clics',
};
export const SPLIT_NO_WINNER = ['send_best', 'stop'] as const;
export type SplitNoWinner = (typeof SPLIT_NO_WINNER)[number];
export const SPLIT_NO_WINNER_LABELS: Record<SplitNoWinner, string> = {
  send_best: 'Enviar la mejor variante',
  stop: 'Detener la campaña (el resto no se envía)',
};
export const MAX_VARIANTS = 4;
/** The variants' letters, in order: the first is the campaign's own template. */
export const VARIANT_LABELS = ['A', 'B', 'C', 'D'] as const;
export type VariantLabel = (typeof VARIANT_LABELS)[number];
export const variantLabel = (index: number): VariantLabel => VARIANT_LABELS[Math.max(0, Math.min(VARIANT_LABELS.length - 1, index))];
/** Significance level of the decision (two-sided), before the Bonferroni correction. */
export const SPLIT_ALPHA = 0.05;
/**
 * Minimum sample of each arm before a winner may be declared (server/src/lib/stats/two-proportion.ts
 * `sampleCheck` says why): every arm expects at least SPLIT_MIN_EXPECTED successes and as many
 * failures under the pooled rate, and so has at least SPLIT_MIN_SENDS_PER_ARM accepted sends.
 */
export const SPLIT_MIN_SENDS_PER_ARM = 10;
export const SPLIT_MIN_EXPECTED = 5;
/**
 * When the sends suffice but the successes do not yet (reads and replies keep arriving), the
 * decision waits longer: the wait again, at most this much. Then the no-winner rule applies.
 */
export const SPLIT_MAX_EXTRA_WAIT_SECONDS = 24 * 3600;
/** The metric's successes, as the sample notes name them. */
export const SPLIT_METRIC_NOUNS: Record<SplitMetric, string> = { read: 'lecturas', reply: 'respuestas', tap: 'toques', click: 'clics' };
/** Meta's template comparison needs at least this many sends of each template. */
export const META_COMPARE_MIN_SENDS = 1000;
/** The reason shown on the rest of the audience when a test without a winner stops the campaign. */
export const SPLIT_STOPPED_REASON = 'Prueba A/B sin ganador significativo: la campaña se detuvo y el resto no se envió';

const MAX_ID = 2_147_483_647;

export const splitVariantSchema = z.strictObject({
  template_id: z.coerce
    .number({ error: 'La plantilla de la variante es requerida' })
    .int()
    .positive('La plantilla de la variante es requerida')
    .max(MAX_ID, 'La plantilla de la variante es requerida'),
});

export const splitVariantsSchema = z
  .array(splitVariantSchema, { error: 'variants debe ser una lista' })
  .min(2, 'Una prueba A/B necesita de 2 a 4 variantes')
  .max(MAX_VARIANTS, 'Una prueba A/B necesita de 2 a 4 variantes')
  .refine((v) => new Set(v.map((x) => x.template_id)).size === v.length, 'Cada variante debe usar una plantilla distinta');

export const abTestSchema = z.strictObject({
  share: z.coerce
    .number({ error: 'La porción de prueba debe ser un número entre 0,01 y 1' })
    .min(0.01, 'La porción de prueba debe estar entre 0,01 y 1')
    .max(1, 'La porción de prueba debe estar entre 0,01 y 1'),
  metric: z.enum(SPLIT_METRICS, { error: 'Métrica inválida: read, reply, tap o click' }),
  wait_seconds: z.coerce
    .number({ error: 'La espera debe ser un número de segundos' })
    .int('La espera debe ser un número entero de segundos')
    .min(1, 'La espera debe ser de 1 segundo a 7 días')
    .max(7 * 24 * 3600, 'La espera debe ser de 1 segundo a 7 días'),
  no_winner: z.enum(SPLIT_NO_WINNER, { error: 'Sin ganador: send_best o stop' }),
});
export type AbTest = z.infer<typeof abTestSchema>;

const armSchema = z.object({
  variant: z.string(),
  template_id: z.number().nullable(),
  template_name: z.string(),
  /** Recipients in the arm (the test slice's, and after the decision the winner's rest too). */
  recipients: z.number(),
  /** Messages Meta accepted: the denominator of the rate. */
  sent: z.number(),
  delivered: z.number(),
  read: z.number(),
  replied: z.number(),
  tapped: z.number(),
  /** Null while click events are not recorded ("no disponible"). */
  clicked: z.number().nullable(),
  /** The metric's successes and rate, with the 95 % (Wilson) interval, as fractions. */
  successes: z.number(),
  rate: z.number().nullable(),
  ci_low: z.number().nullable(),
  ci_high: z.number().nullable(),
  /** The arm's real cost in USD: its delivered messages priced with the rate card (as the campaign's). */
  cost: z.number(),
});
export type SplitArm = z.infer<typeof armSchema>;

/**
 * Meta's template comparison (`GET /{template_id}/compare`): which variant had fewer blocks (Meta
 * gives the order, not the rates), its sends in the last 7 days and its top block reason; or why
 * it is not available (fewer than 1,000 sends, more than two variants, Meta's refusal).
 */
export const metaCompareSchema = z.object({
  available: z.boolean(),
  reason: z.string().nullable(),
  arms: z.array(z.object({ variant: z.string(), fewer_blocks: z.boolean(), sends: z.number().nullable(), top_block_reason: z.string().nullable() })),
});
export type MetaCompare = z.infer<typeof metaCompareSchema>;

export const splitResultSchema = z.object({
  outcome: z.enum(['winner', 'best', 'stopped']),
  /** The variant the rest got (null when stopped). */
  winner: z.string().nullable(),
  /** The best arm by the metric, its lead over the runner-up in points, the (corrected) p and z. */
  best: z.string().nullable(),
  lift_points: z.number().nullable(),
  p_value: z.number().nullable(),
  z: z.number().nullable(),
  significant: z.boolean(),
  /** "Ganó B (+3,1 pts, p = 0,004)" or "Sin diferencia significativa". */
  summary: z.string(),
  decided_at: z.string(),
  /** The test slice's figures the decision was taken on (the arms grow afterwards with the rest). */
  test_arms: z.array(z.object({ variant: z.string(), sent: z.number(), successes: z.number() })),
  /** True when the sample was too small for the z-test: the no-winner rule was applied. */
  insufficient_sample: z.boolean().optional(),
  /** Why the sample was too small, in Spanish. */
  sample_note: z.string().nullable().optional(),
  /** Meta's template comparison, asked once after the campaign completes (two arms past 1,000 sends). */
  meta_compare: metaCompareSchema.nullable().optional(),
});
export type SplitResult = z.infer<typeof splitResultSchema>;

/** Detail view of a split test (absent for every other campaign). */
export const splitTestViewSchema = z.object({
  ab_test: abTestSchema,
  metric_label: z.string(),
  /** True while clicks are not recorded: the click metric counts 0 ("no disponible"). */
  clicks_unavailable: z.boolean(),
  /** When the decision is due (set at the start), null before. */
  decide_at: z.string().nullable(),
  /** Recipients outside the test slice still waiting for the winner. */
  waiting: z.number(),
  /**
   * The minimum sample per arm and, before the decision, whether the test slice meets it; when the
   * successes fall short the decision waits until `extended_until` (then the no-winner rule).
   */
  sample: z.object({
    min_sends: z.number(),
    min_expected: z.number(),
    sufficient: z.boolean(),
    /** Why not yet, in Spanish (null when sufficient). */
    note: z.string().nullable(),
    extended_until: z.string().nullable(),
  }),
  arms: z.array(armSchema),
  result: splitResultSchema.nullable(),
});
export type SplitTestView = z.infer<typeof splitTestViewSchema>;
