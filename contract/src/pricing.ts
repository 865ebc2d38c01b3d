import { z } from 'zod';

/** Meta's template categories that carry a per-message rate. */
export const PRICING_CATEGORIES = ['marketing', 'utility', 'authentication'] as const;
export type PricingCategory = (typeof PRICING_CATEGORIES)[number];

/** Spanish labels of the categories for the "Tarifas" screen. */
export const PRICING_CATEGORY_LABELS: Record<PricingCategory, string> = {
  marketing: 'Marketing',
  utility: 'Utilidad',
  authentication: 'Autenticación',
};

/** The CSV's columns, in order (the last two are optional on upload). */
export const RATE_CARD_CSV_COLUMNS = ['categoria', 'pais', 'vigente_desde', 'usd_por_mensaje', 'fuente', 'fecha_fuente'] as const;

/** Upload limits: the CSV's size in characters and its number of rates. */
export const RATE_CARD_MAX_CHARS = 512 * 1024;
export const RATE_CARD_MAX_ROWS = 5_000;

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);

export const rateCardRateSchema = z.object({
  category: z.enum(PRICING_CATEGORIES),
  /** ISO country (AR) or a region key (resto_latam). */
  market: z.string(),
  /** The market's Spanish name. */
  label: z.string(),
  effective_from: isoDate,
  /** Null: "sin tarifa" from this date. */
  usd_per_message: z.number().nullable(),
  source: z.string().nullable(),
  source_date: isoDate.nullable(),
});
export type RateCardRate = z.infer<typeof rateCardRateSchema>;

/** The rate in force on `today` for one category of one market, or null = "sin tarifa". */
export const rateInForceSchema = z
  .object({
    usd_per_message: z.number().nullable(),
    effective_from: isoDate,
    source: z.string().nullable(),
    source_date: isoDate.nullable(),
  })
  .nullable();

export const rateCardMarketSchema = z.object({
  market: z.string(),
  label: z.string(),
  is_region: z.boolean(),
  current: z.object({ marketing: rateInForceSchema, utility: rateInForceSchema, authentication: rateInForceSchema }),
});
export type RateCardMarket = z.infer<typeof rateCardMarketSchema>;

export const rateCardSchema = z.object({
  currency: z.literal('USD'),
  /** True while the tenant follows the card shipped with the console. */
  is_default: z.boolean(),
  updated_at: z.string().nullable(),
  /** The day (UTC) `current` is computed for. */
  today: isoDate,
  markets: z.array(rateCardMarketSchema),
  rates: z.array(rateCardRateSchema),
  regions: z.array(z.object({ key: z.string(), label: z.string(), countries: z.array(z.string()) })),
});
export type RateCard = z.infer<typeof rateCardSchema>;

export const rateCardUploadSchema = z.strictObject({
  csv: z
    .string({ error: 'El archivo CSV es requerido' })
    .min(1, 'El archivo CSV está vacío')
    .max(RATE_CARD_MAX_CHARS, 'El archivo es demasiado grande (máximo 512 KB)'),
});
export type RateCardUpload = z.infer<typeof rateCardUploadSchema>;

export const rateCardLineErrorSchema = z.object({ line: z.number(), message: z.string() });
export type RateCardLineError = z.infer<typeof rateCardLineErrorSchema>;

/** A refused upload: nothing was applied; `errors` name each bad line (absent when the body itself is refused). */
export const rateCardUploadErrorSchema = z.object({ error: z.string(), errors: z.array(rateCardLineErrorSchema).optional() });
