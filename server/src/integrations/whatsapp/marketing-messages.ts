/**
 * Meta's Marketing Messages API for WhatsApp: `POST /{phone-number-id}/marketing_messages`, the
 * same body as `/messages` plus `product_policy`, for MARKETING templates only. We always send
 * `STRICT` (Meta never falls back to Cloud API silently) and handle its refusals ourselves:
 * docs/architecture/meta-rules.md "Marketing Messages API".
 */

/** The two routes a template message can take; recorded per recipient (`campaign_recipients.route`). */
export const ROUTE_MESSAGES = 'messages';
export const ROUTE_MARKETING = 'marketing_messages';
export type SendRoute = typeof ROUTE_MESSAGES | typeof ROUTE_MARKETING;

/** `product_policy`: STRICT (no silent fallback to Cloud API) | CLOUD_API_FALLBACK. */
export const PRODUCT_POLICY = 'STRICT';

/** `marketing_messages_onboarding_status` of a WABA: the one value that opens the route. */
export const ONBOARDED = 'ONBOARDED';
/** The portfolio's terms, `owner_business_info.marketing_messages_onboarding_status.status`. */
export const TERMS_SIGNED = 'TERM_OF_SERVICE_SIGNED';

/**
 * Meta's documented refusals on the marketing route (error codes page, Marketing Messages API
 * section), and what each means for us:
 * - 100 "Unsupported post request … does not support this operation": the route is not open for
 *   this number (portfolio not onboarded, terms not accepted).
 * - 131055 "only marketing templates are supported", 134100 "non-marketing template type is
 *   unsupported": Meta holds another category for the template than we do (a recategorisation
 *   whose webhook has not arrived).
 * - 134101 "template still syncing" (up to 10 minutes after creation or reactivation).
 * - 134102 "template unavailable, or the user is ineligible" for this API.
 */
export const MM_UNSUPPORTED_OPERATION = 100;
export const MM_ONLY_MARKETING = 131055;
export const MM_NON_MARKETING_TEMPLATE = 134100;
export const MM_TEMPLATE_SYNCING = 134101;
export const MM_TEMPLATE_OR_USER_INELIGIBLE = 134102;
/** How long a template that is still syncing goes by /messages before the route is tried again. */
export const MM_SYNC_WAIT_MS = 10 * 60_000;

export type MarketingRefusal =
  /** The route is not available for the number: it moves to /messages until Meta reports it onboarded again. */
  | { kind: 'route_unavailable'; reason: string }
  /** This template (for a while) or this person cannot go by the route: this message goes by /messages. */
  | { kind: 'template'; waitMs: number }
  | { kind: 'message' };

/** A refusal of the marketing route, or null when the error is an ordinary one (classified as on /messages). */
export function marketingRefusal(code: number | null, message: string): MarketingRefusal | null {
  if (code === MM_UNSUPPORTED_OPERATION && /unsupported post request|does not support this operation|not onboarded/i.test(message)) {
    return { kind: 'route_unavailable', reason: ROUTE_UNAVAILABLE_REASON };
  }
  // Meta already holds the template as another category: its template_category_update is on the
  // way and changes our routing then; until it does, each such message goes by /messages.
  if (code === MM_ONLY_MARKETING || code === MM_NON_MARKETING_TEMPLATE) return { kind: 'message' };
  if (code === MM_TEMPLATE_SYNCING) return { kind: 'template', waitMs: MM_SYNC_WAIT_MS };
  if (code === MM_TEMPLATE_OR_USER_INELIGIBLE) return { kind: 'message' };
  return null;
}

export const ROUTE_UNAVAILABLE_REASON =
  'Meta rechazó la API de marketing para este número (el portafolio no aceptó los términos): los mensajes de marketing salen por /messages hasta que Meta informe el portafolio incorporado.';

/**
 * A message Meta could not deliver within its time-to-live (the template's
 * `message_send_ttl_seconds`) is reported by a `failed` status with error 410, "Message expired"
 * ("Message failed to send during its Time To Live (TTL) duration"). The recipient is "Vencido"
 * (status `expired`), not failed: recipient-transitions.ts.
 */
export const MESSAGE_EXPIRED = 410;

/** `message_send_ttl_seconds` of a MARKETING template: 12 hours to 30 days (Meta's TTL page). */
export const MARKETING_TTL_MIN_SECONDS = 43_200;
export const MARKETING_TTL_MAX_SECONDS = 2_592_000;
