import { z } from 'zod';
import { ACCESS_TOKEN_CHARSET_MESSAGE, ACCESS_TOKEN_PATTERN } from './common';
import { marketingMessagesStateSchema } from './marketing-messages';
import { sendingHoursSchema, sendingHoursViewSchema } from './sending-hours';

/** Meta's default throughput per number is 80 msg/s; upgraded numbers reach 1,000. */
export const DEFAULT_RATE_PER_SECOND = 80;
export const MAX_RATE_PER_SECOND = 1000;

/** International format: a plus sign, the country code and the number (spaces and dashes allowed). */
export const INTERNATIONAL_PHONE_PATTERN = /^\+[1-9]\d{6,14}$/;
export const PHONE_FORMAT_MESSAGE = 'El número debe estar en formato internacional (ej: +1234567890)';

/** Quality ratings the card colours; anything else is shown as UNKNOWN. */
export const QUALITY_RATINGS = ['GREEN', 'YELLOW', 'RED'] as const;
export const displayQuality = (rating: string | null | undefined) =>
  rating && (QUALITY_RATINGS as readonly string[]).includes(rating.toUpperCase()) ? rating.toUpperCase() : 'UNKNOWN';

export const normalizeInternationalPhone = (raw: string) => raw.trim().replace(/[\s\-().]/g, '');

const required = (message: string, max = 200) => z.string({ error: message }).trim().min(1, message).max(max);

const phoneNumber = z
  .string({ error: 'El número de teléfono es requerido' })
  .trim()
  .min(1, 'El número de teléfono es requerido')
  .transform(normalizeInternationalPhone)
  .refine((v) => INTERNATIONAL_PHONE_PATTERN.test(v), PHONE_FORMAT_MESSAGE);

/** Meta ids are digits; checking here keeps a typo from becoming a confusing Graph error. */
const metaId = (message: string, invalid: string) => required(message, 40).regex(/^\d+$/, invalid);

const ratePerSecond = z.coerce
  .number({ error: 'La velocidad de envío debe ser un número' })
  .int('La velocidad de envío debe ser un número entero')
  .min(1, 'La velocidad de envío mínima es 1 mensaje por segundo')
  .max(MAX_RATE_PER_SECOND, `La velocidad de envío máxima es ${MAX_RATE_PER_SECOND} mensajes por segundo`);

/** Optional text: blank means "not given". */
const optionalText = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .nullish()
    .transform((v) => (v ? v : undefined));

const kommoAccountId = z
  .union([z.coerce.number().int().positive().max(2_147_483_647), z.literal(''), z.null()])
  .optional()
  .transform((v) => (v === '' ? null : v));

const fields = {
  name: required('El nombre es requerido', 100),
  phone_number: phoneNumber,
  phone_number_id: metaId('El ID del número de teléfono es requerido', 'El ID del número de teléfono solo admite dígitos'),
  access_token: required('El token de acceso es requerido', 4096).regex(ACCESS_TOKEN_PATTERN, ACCESS_TOKEN_CHARSET_MESSAGE),
  business_account_id: metaId('El ID de la cuenta de negocio es requerido', 'El ID de la cuenta de negocio solo admite dígitos'),
  kommo_account_id: kommoAccountId,
  webhook_verify_token: optionalText(200),
  notes: optionalText(2000),
  rate_per_second: ratePerSecond.optional(),
  is_active: z.boolean().optional(),
  /** The "Horario de envío" new campaigns of this number start with (null: off). */
  default_sending_hours: sendingHoursSchema.nullable().optional(),
};

export const createWhatsAppAccountSchema = z.strictObject(fields);
export type CreateWhatsAppAccountInput = z.input<typeof createWhatsAppAccountSchema>;

/** Edit: name stays required; a blank token keeps the current one; other blanks are omitted. */
export const updateWhatsAppAccountSchema = z.strictObject({
  ...fields,
  phone_number: phoneNumber.optional(),
  phone_number_id: fields.phone_number_id.optional(),
  business_account_id: fields.business_account_id.optional(),
  access_token: optionalText(4096).refine((v) => v === undefined || ACCESS_TOKEN_PATTERN.test(v), ACCESS_TOKEN_CHARSET_MESSAGE),
});
export type UpdateWhatsAppAccountInput = z.input<typeof updateWhatsAppAccountSchema>;

export const whatsappAccountSchema = z.object({
  id: z.number(),
  name: z.string(),
  phone_number: z.string(),
  display_phone_number: z.string().nullable(),
  phone_number_id: z.string(),
  business_account_id: z.string(),
  kommo_account_id: z.number().nullable(),
  webhook_verify_token: z.string().nullable(),
  /** Where the operator points Meta's webhook: `${PUBLIC_URL}/api/webhooks/whatsapp`. */
  webhook_url: z.string(),
  notes: z.string().nullable(),
  is_active: z.boolean(),
  is_verified: z.boolean(),
  quality_rating: z.string().nullable(),
  verified_name: z.string().nullable(),
  code_verification_status: z.string().nullable(),
  throughput_level: z.string().nullable(),
  /** Meta's `is_on_biz_app`: also used in the WhatsApp Business app (coexistence, fixed at 20 msg/s). */
  is_on_biz_app: z.boolean().nullable().optional(),
  /** Meta's rate for the number's level (STANDARD 80, HIGH 1,000, coexistence 20); null while unknown. */
  throughput_rate_per_second: z.number().nullable().optional(),
  /** What campaigns are paced at: rate_per_second, capped by throughput_rate_per_second. */
  effective_rate_per_second: z.number().optional(),
  messaging_limit: z.string().nullable(),
  /** The business portfolio owning the number (null: unknown; the WABA stands for it). */
  business_portfolio_id: z.string().nullable(),
  /** Meta's messaging limit of the portfolio: unique recipients per moving 24 h; -1 unlimited, null unknown. */
  daily_limit: z.number().nullable(),
  /** Unique recipients all numbers of the portfolio reached in the last 24 h. */
  daily_limit_used: z.number(),
  rate_per_second: z.number(),
  default_sending_hours: sendingHoursViewSchema.nullable().optional(),
  daily_message_count: z.number(),
  last_message_sent_at: z.string().nullable(),
  last_checked_at: z.string().nullable(),
  /** The token itself is never returned. */
  has_access_token: z.boolean(),
  /** Meta's Marketing Messages API for this number: state, Spanish guidance, fallback (marketing-messages.ts). */
  marketing_messages: marketingMessagesStateSchema.optional(),
  /**
   * While Meta restricts the number (its WABA restricted or banned, or a send refused as 131031 or
   * 131048): since when, until when (null: until Meta lifts it) and why. Null when not restricted.
   * A restricted number takes no new people in a several-number campaign.
   */
  restriction: z.object({ since: z.string(), until: z.string().nullable(), reason: z.string().nullable() }).nullable().optional(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type WhatsAppAccount = z.infer<typeof whatsappAccountSchema>;

export const whatsappAccountStatsSchema = z.object({
  total_accounts: z.number(),
  active_accounts: z.number(),
  verified_accounts: z.number(),
  daily_messages_sent: z.number(),
  monthly_messages_sent: z.number(),
});
export type WhatsAppAccountStats = z.infer<typeof whatsappAccountStatsSchema>;

export const testWhatsAppAccountResponseSchema = z.object({
  success: z.boolean(),
  error: z.string().optional(),
  message: z.string().optional(),
  account: whatsappAccountSchema.optional(),
});
export type TestWhatsAppAccountResponse = z.infer<typeof testWhatsAppAccountResponseSchema>;
