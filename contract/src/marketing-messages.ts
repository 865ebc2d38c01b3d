import { z } from 'zod';

/**
 * Meta's Marketing Messages API for WhatsApp, as the console shows it: the number's onboarding
 * state with Spanish guidance, the route each recipient took, a marketing template's
 * time-to-live ("Vence en …") and the clicks. docs/architecture/meta-rules.md.
 */

/** The route that carried a message: Cloud API `/messages` or `/marketing_messages`. */
export const SEND_ROUTES = ['messages', 'marketing_messages'] as const;
export type SendRoute = (typeof SEND_ROUTES)[number];
export const SEND_ROUTE_LABELS: Record<SendRoute, string> = {
  messages: 'Cloud API',
  marketing_messages: 'API de marketing',
};

/** `message_send_ttl_seconds` of a MARKETING template: 12 hours to 30 days. */
export const MARKETING_TTL_MIN_SECONDS = 43_200;
export const MARKETING_TTL_MAX_SECONDS = 2_592_000;
export const TTL_RANGE_MESSAGE = 'El vencimiento de una plantilla de marketing va de 12 horas a 30 días';
export const TTL_ONLY_MARKETING_MESSAGE = 'Solo las plantillas de marketing admiten un vencimiento (se envían por la API de marketing)';

export const ttlSecondsSchema = z
  .number({ error: TTL_RANGE_MESSAGE })
  .int(TTL_RANGE_MESSAGE)
  .min(MARKETING_TTL_MIN_SECONDS, TTL_RANGE_MESSAGE)
  .max(MARKETING_TTL_MAX_SECONDS, TTL_RANGE_MESSAGE);

/** `PATCH /api/templates/:id/ttl`: a new time-to-live, or null for Meta's default (30 days). */
export const updateTemplateTtlSchema = z.strictObject({
  message_send_ttl_seconds: z.union([ttlSecondsSchema, z.null()]),
});
export type UpdateTemplateTtlInput = z.infer<typeof updateTemplateTtlSchema>;

/** "12 horas", "1 día y 12 horas", "30 días". */
export function formatTtl(seconds: number): string {
  const hours = Math.round(seconds / 3600);
  const days = Math.floor(hours / 24);
  const rest = hours % 24;
  const d = days ? `${days} ${days === 1 ? 'día' : 'días'}` : '';
  const h = rest ? `${rest} ${rest === 1 ? 'hora' : 'horas'}` : '';
  return d && h ? `${d} y ${h}` : d || h || `${seconds} s`;
}

/** "Vence en 2 días" for a campaign, or Meta's default when the template sets none. */
export function expiryLabel(ttlSeconds: number | null | undefined, route: 'marketing' | 'other'): string | null {
  if (route !== 'marketing') return null;
  return ttlSeconds ? `Vence en ${formatTtl(ttlSeconds)}` : 'Vence en 30 días (valor por defecto de Meta)';
}

export const ONBOARDING_STATES = ['onboarded', 'fallback', 'eligible', 'pending', 'ineligible', 'unknown'] as const;
export type OnboardingState = (typeof ONBOARDING_STATES)[number];

export const marketingMessagesStateSchema = z.object({
  state: z.enum(ONBOARDING_STATES),
  /** Meta's `marketing_messages_onboarding_status` of the WABA (ONBOARDED, ELIGIBLE, …). */
  onboarding_status: z.string().nullable(),
  /** The portfolio's terms (TERM_OF_SERVICE_SIGNED, REQUEST_SENT, NOT_STARTED). */
  terms_status: z.string().nullable(),
  checked_at: z.string().nullable(),
  /** Meta refused the route: marketing goes by /messages until Meta reports it onboarded again. */
  fallback_at: z.string().nullable(),
  fallback_reason: z.string().nullable(),
  label: z.string(),
  guidance: z.string(),
});
export type MarketingMessagesState = z.infer<typeof marketingMessagesStateSchema>;

export const TERMS_GUIDANCE =
  'Para enviar por la API de marketing, una persona con control total del portafolio comercial debe aceptar los Términos de Marketing Messages API en WhatsApp Manager (Resumen → Alertas → «Aceptar términos»). Luego pulsa «Actualizar» en este número; Meta también nos avisa cuando se aceptan.';

/** The number card's badge and guidance, from the stored Meta state. */
export function marketingMessagesState(row: {
  onboarding_status: string | null;
  terms_status: string | null;
  checked_at: string | null;
  fallback_at: string | null;
  fallback_reason: string | null;
}): MarketingMessagesState {
  const status = (row.onboarding_status ?? '').toUpperCase();
  let state: OnboardingState;
  let label: string;
  let guidance: string;
  if (status === 'ONBOARDED' && row.fallback_at) {
    state = 'fallback';
    label = 'API de marketing: rechazada, se usa Cloud API';
    guidance = `${row.fallback_reason ?? 'Meta rechazó la API de marketing para este número.'} ${TERMS_GUIDANCE}`;
  } else if (status === 'ONBOARDED') {
    state = 'onboarded';
    label = 'API de marketing activa';
    guidance = 'Las plantillas de marketing salen por la API de marketing (entrega optimizada, vencimiento y clics). Las demás, por Cloud API.';
  } else if (status === 'ELIGIBLE') {
    state = 'eligible';
    label = 'API de marketing: faltan los términos';
    guidance = `Las plantillas de marketing salen por Cloud API. ${TERMS_GUIDANCE}`;
  } else if (status.startsWith('PENDING')) {
    state = 'pending';
    label = 'API de marketing: en preparación';
    guidance =
      status === 'PENDING_VALID_PAYMENT_METHOD'
        ? 'Meta espera un método de pago válido en la cuenta de WhatsApp Business. Mientras tanto, las plantillas de marketing salen por Cloud API.'
        : 'Meta está preparando la cuenta. Mientras tanto, las plantillas de marketing salen por Cloud API.';
  } else if (status.startsWith('INELIGIBLE')) {
    state = 'ineligible';
    label = 'API de marketing: no disponible';
    guidance = 'Meta indica que esta cuenta no puede usar la API de marketing (país, restricciones o uso desde la app WhatsApp Business). Las plantillas de marketing salen por Cloud API.';
  } else {
    state = 'unknown';
    label = 'API de marketing: sin consultar';
    guidance = 'Pulsa «Probar» o «Actualizar» para consultar a Meta si este número puede usar la API de marketing.';
  }
  return { state, ...row, label, guidance };
}

/** A campaign's Marketing Messages API figures (detail view). */
export const campaignMarketingSchema = z.object({
  /** Recipients whose message Meta dropped after the template's time-to-live: "Vencido", not failed. */
  expired_count: z.number(),
  /** Recipients who clicked (click webhooks); clicks from Meta's template analytics when read. */
  clicked_count: z.number(),
  analytics_clicks: z.number().nullable(),
  analytics_clicks_at: z.string().nullable(),
  /** False when Meta gives no clicks for the account (no route, no webhook clicks, no analytics): "no disponible". */
  clicks_available: z.boolean(),
  /** Recipients sent by each route. */
  by_route: z.object({ messages: z.number(), marketing_messages: z.number() }),
  /** "Vence en …" of the campaign's template when it goes by the marketing route; null otherwise. */
  expiry_label: z.string().nullable(),
});
export type CampaignMarketing = z.infer<typeof campaignMarketingSchema>;
