import { z } from 'zod';
import { createCampaignSchema } from './campaigns';

/** Why a matched contact will not be attempted (the pre-flight). */
export const EXCLUSION_REASONS = ['invalid_phone', 'duplicate', 'blacklisted', 'frequency_cap', 'us_marketing', 'template_unfit'] as const;
export type ExclusionReason = (typeof EXCLUSION_REASONS)[number];

/** The Spanish label of each reason, as the pre-flight panel shows it. */
export const EXCLUSION_LABELS: Record<ExclusionReason, string> = {
  invalid_phone: 'sin teléfono válido',
  duplicate: 'duplicado',
  blacklisted: 'en lista negra',
  frequency_cap: 'tope de frecuencia',
  us_marketing: 'EE.UU. (marketing)',
  template_unfit: 'plantilla no apta',
};

export const preflightSchema = z.object({
  /** Every contact the filter matches (= the campaign's `total_recipients`). */
  matched: z.number(),
  /** The recipients who will be attempted (= the rows frozen as pending at the first start). */
  attempted: z.number(),
  excluded: z.array(z.object({ reason: z.enum(EXCLUSION_REASONS), label: z.string(), count: z.number() })),
  /** Why the template is unfit, when it is. */
  template_problem: z.string().nullable(),
  budget: z.object({
    /** Meta's daily limit of the portfolio: null unknown, -1 unlimited. */
    daily_limit: z.number().nullable(),
    used: z.number(),
    /** Places left in the moving 24 h; null when unlimited or unknown. */
    left: z.number().nullable(),
    /** Days (waves of 24 h) the attempted need under the limit; 1 when unlimited or unknown. */
    waves: z.number(),
  }),
  eta: z.object({
    rate_per_second: z.number(),
    finish_at: z.string(),
    sending_seconds: z.number(),
    waiting_seconds: z.number(),
  }),
  cost: z.object({
    currency: z.literal('USD'),
    /** Estimated total of the priced recipients. */
    total: z.number(),
    priced: z.number(),
    /** Recipients whose country has no rate ("sin tarifa"). */
    unpriced: z.number(),
    by_country: z.array(z.object({ country: z.string().nullable(), count: z.number(), rate: z.number().nullable() })),
  }),
  frequency_cap: z.object({ max_messages: z.number(), days: z.number() }).nullable(),
});
export type Preflight = z.infer<typeof preflightSchema>;

/** The tenant's frequency cap: null turns it off. */
export const frequencyCapSchema = z.strictObject({
  cap: z
    .strictObject({
      max_messages: z.coerce.number({ error: 'Indica cuántos mensajes' }).int('Debe ser un número entero').min(1, 'Mínimo 1 mensaje').max(100, 'Máximo 100 mensajes'),
      days: z.coerce.number({ error: 'Indica cuántos días' }).int('Debe ser un número entero').min(1, 'Mínimo 1 día').max(90, 'Máximo 90 días'),
    })
    .nullable(),
});
export type FrequencyCapInput = z.input<typeof frequencyCapSchema>;
export type FrequencyCap = z.infer<typeof frequencyCapSchema>;

/** What the settings card suggests when the operator turns the cap on. */
export const SUGGESTED_CAP = { max_messages: 2, days: 7 } as const;

/**
 * GET /api/campaigns/{id}/preflight: `start=now` estimates a scheduled campaign as if it started
 * now (the send confirmation of «Iniciar»), not at its date.
 */
export const campaignPreflightQuerySchema = z.object({
  start: z.enum(['now'], { error: 'El parámetro start solo admite el valor now' }).optional(),
});
export type CampaignPreflightQuery = z.infer<typeof campaignPreflightQuerySchema>;

/** POST /api/campaigns/preflight: the create payload; the name may still be empty while the screen is filled in. */
export const preflightRequestSchema = createCampaignSchema.extend({ name: z.string().max(200).optional().default('') });
export type PreflightRequest = z.input<typeof preflightRequestSchema>;

/** Rows of one exclusion list as CSV at most (the JSON list pages through all of them). */
export const EXCLUDED_CSV_LIMIT = 100_000;
export const EXCLUDED_PAGE_LIMIT = 500;

/**
 * The contacts behind one reason of the pre-flight: GET /api/campaigns/{id}/preflight/excluded
 * and POST /api/campaigns/preflight/excluded (the create payload as body). `after` is the
 * `next_after` of the previous page.
 */
export const excludedQuerySchema = z.strictObject({
  reason: z.enum(EXCLUSION_REASONS, { error: 'Motivo de exclusión inválido' }),
  format: z.enum(['json', 'csv'], { error: 'Formato inválido: usa json o csv' }).default('json'),
  after: z.coerce
    .number({ error: 'Cursor inválido' })
    .int('Cursor inválido')
    .min(0, 'Cursor inválido')
    .max(Number.MAX_SAFE_INTEGER, 'Cursor inválido')
    .default(0),
  limit: z.coerce
    .number({ error: 'Límite inválido' })
    .int('Límite inválido')
    .min(1, 'Límite inválido')
    .max(EXCLUDED_PAGE_LIMIT, `Máximo ${EXCLUDED_PAGE_LIMIT} por página`)
    .default(100),
});
export type ExcludedQuery = z.input<typeof excludedQuerySchema>;

export const excludedContactSchema = z.object({
  /** The Kommo contact (null when it was deleted since). */
  kommo_id: z.number().nullable(),
  name: z.string(),
  /** The phone as stored in Kommo (what the operator corrects there). */
  phone: z.string().nullable(),
  /** The number it was read as (E.164), when it is valid. */
  normalized: z.string().nullable(),
  reason: z.enum(EXCLUSION_REASONS),
});
export type ExcludedContact = z.infer<typeof excludedContactSchema>;

export const excludedPageSchema = z.object({
  reason: z.enum(EXCLUSION_REASONS),
  label: z.string(),
  contacts: z.array(excludedContactSchema),
  /** The `after` of the next page; null on the last one. */
  next_after: z.number().nullable(),
});
export type ExcludedPage = z.infer<typeof excludedPageSchema>;
