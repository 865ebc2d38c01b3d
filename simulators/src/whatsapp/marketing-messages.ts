// Meta's Marketing Messages API for WhatsApp, as the simulator plays it: the WABA's onboarding
// state (`marketing_messages_onboarding_status`, the portfolio's terms in `owner_business_info`,
// the `account_update` MM_LITE_TERMS_SIGNED webhook), the rules of POST /{id}/marketing_messages
// (only template messages, only MARKETING templates, `product_policy` STRICT refuses when not
// onboarded while CLOUD_API_FALLBACK delivers by Cloud API, the request schema has no other
// properties, a template still syncing), the templates' time-to-live (`message_send_ttl_seconds`
// per category, only marketing sends by this API honour a marketing TTL), link-click events
// (`user_actions` marketing_messages_link_click) and `template_analytics` with `product_type`.
import { graphError, type GraphError } from './errors';
import type { Template } from './templates';

export const MM_PRODUCT_TYPE = 'MARKETING_MESSAGES_API_FOR_WHATSAPP';
export const ONBOARDING_STATUSES = [
  'INELIGIBLE_ON_BEHALF_OF_WABA', 'INELIGIBLE_INACTIVE_OR_RESTRICTED', 'INELIGIBLE_COUNTRY_NOT_SUPPORTED',
  'INELIGIBLE_USING_WHATSAPP_BUSINESS_APP', 'ELIGIBLE', 'PENDING_VALID_PAYMENT_METHOD', 'PENDING_INTERNAL_SETUP', 'ONBOARDED',
] as const;
export type OnboardingStatus = (typeof ONBOARDING_STATUSES)[number];

/** `MarketingMessageRequestPayload` (additionalProperties: false), plus the callback data Cloud API echoes. */
const ALLOWED_KEYS = new Set(['messaging_product', 'recipient_type', 'to', 'recipient', 'type', 'template', 'product_policy', 'message_activity_sharing', 'biz_opaque_callback_data']);
const POLICIES = new Set(['STRICT', 'CLOUD_API_FALLBACK']);

/** Meta's ranges of `message_send_ttl_seconds` per category (time-to-live page). */
export const TTL_RANGES: Record<string, [number, number]> = {
  AUTHENTICATION: [30, 900],
  UTILITY: [30, 43_200],
  MARKETING: [43_200, 2_592_000],
};

export function ttlProblem(category: string, ttl: unknown): GraphError | null {
  if (ttl === undefined || ttl === null) return null;
  const range = TTL_RANGES[category.toUpperCase()];
  const n = Number(ttl);
  if (!range || !Number.isInteger(n) || n < range[0] || n > range[1]) {
    return graphError(100, `Invalid parameter message_send_ttl_seconds (${String(ttl)}): for ${category.toUpperCase()} templates the value must be between ${range?.[0]} and ${range?.[1]} seconds.`);
  }
  return null;
}

export interface MarketingSend {
  templateId: string;
  route: 'messages' | 'marketing_messages';
  at: number;
  to: string;
  clicks: number;
}

export class MarketingMessagesSim {
  /** WABA → onboarding status; absent: ELIGIBLE (not onboarded). */
  private readonly onboarding = new Map<string, OnboardingStatus>();
  /** Template id → time until which it is still syncing with the marketing API. */
  private readonly syncingUntil = new Map<string, number>();
  /** Template id → its `message_send_ttl_seconds`. */
  readonly ttl = new Map<string, number>();
  /** wamid → the send, for click events and template analytics. */
  readonly sends = new Map<string, MarketingSend>();
  /** WABAs whose analytics Meta does not give (EU, UK, JP). */
  readonly analyticsUnavailable = new Set<string>();

  status(wabaId: string): OnboardingStatus {
    return this.onboarding.get(wabaId) ?? 'ELIGIBLE';
  }

  setStatus(wabaId: string, status: string): void {
    if (!(ONBOARDING_STATUSES as readonly string[]).includes(status)) throw new Error(`status must be one of ${ONBOARDING_STATUSES.join(', ')}`);
    this.onboarding.set(wabaId, status as OnboardingStatus);
  }

  /** `owner_business_info.marketing_messages_onboarding_status.status` of the portfolio. */
  termsStatus(wabaId: string): string {
    const s = this.status(wabaId);
    return s === 'ONBOARDED' || s.startsWith('PENDING') ? 'TERM_OF_SERVICE_SIGNED' : 'NOT_STARTED';
  }

  setSyncing(templateId: string, ms: number): void {
    this.syncingUntil.set(templateId, Date.now() + ms);
  }

  /**
   * The checks of POST /marketing_messages before the shared send validation; returns the error
   * Meta gives, or `{ fallback }` (true: not onboarded with CLOUD_API_FALLBACK, delivered by Cloud API).
   */
  check(body: any, wabaId: string, template: (name: string, language: string) => Template | undefined): { error: GraphError } | { fallback: boolean } {
    if (!body || typeof body !== 'object' || Array.isArray(body)) return { error: graphError(100, 'The request body must be a JSON object') };
    for (const key of Object.keys(body)) if (!ALLOWED_KEYS.has(key)) return { error: graphError(100, `(#100) Param ${key} is not allowed`) };
    if (body.type !== 'template') return { error: graphError(100, 'Message must be a template message.') };
    const policy = body.product_policy ?? 'CLOUD_API_FALLBACK';
    if (!POLICIES.has(policy)) return { error: graphError(100, `(#100) Param product_policy must be one of {CLOUD_API_FALLBACK, STRICT}`) };
    if (body.message_activity_sharing !== undefined && typeof body.message_activity_sharing !== 'boolean') {
      return { error: graphError(100, '(#100) Param message_activity_sharing must be a boolean') };
    }
    const language = typeof body.template?.language === 'string' ? body.template.language : body.template?.language?.code;
    const t = template(String(body.template?.name ?? ''), String(language ?? ''));
    if (t && t.category !== 'MARKETING') return { error: graphError(134100) };
    if (this.status(wabaId) !== 'ONBOARDED') {
      if (policy === 'STRICT') {
        // Meta's generic refusal of an operation the object does not support (code 100, subcode 33).
        const message = `Unsupported post request. Object with ID '${wabaId}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`;
        return { error: graphError(100, 'The WhatsApp Business Account is not onboarded to the Marketing Messages API for WhatsApp.', { message, error_subcode: 33 }) };
      }
      return { fallback: true };
    }
    if (t && (this.syncingUntil.get(t.id) ?? 0) > Date.now()) return { error: graphError(134101) };
    return { fallback: false };
  }

  record(wamid: string, templateId: string, route: MarketingSend['route'], to: string): void {
    this.sends.set(wamid, { templateId, route, at: Date.now(), to, clicks: 0 });
  }

  /** `GET /{waba}/template_analytics`: daily points per template; clicks only for the product asked. */
  analytics(wabaId: string, q: Record<string, string | undefined>, templateIds: (id: string) => boolean): { error: GraphError } | { body: unknown } {
    if (this.analyticsUnavailable.has(wabaId)) return { error: graphError(100, 'Template analytics are not supported for this WhatsApp Business Account.') };
    let ids: string[];
    try {
      ids = JSON.parse(q.template_ids ?? '').map(String);
    } catch {
      return { error: graphError(100, '(#100) The parameter template_ids is required') };
    }
    if (!Array.isArray(ids) || !ids.length) return { error: graphError(100, '(#100) The parameter template_ids is required') };
    if (ids.length > 10) return { error: graphError(100, '(#100) template_ids accepts at most 10 ids') };
    if (!q.start || !q.end) return { error: graphError(100, '(#100) The parameters start and end are required') };
    if ((q.granularity ?? '').toUpperCase() !== 'DAILY') return { error: graphError(100, '(#100) granularity must be DAILY') };
    const product = q.product_type ?? 'CLOUD_API';
    if (product !== MM_PRODUCT_TYPE && product !== 'CLOUD_API') return { error: graphError(100, `(#100) Invalid product_type ${product}`) };
    const route = product === MM_PRODUCT_TYPE ? 'marketing_messages' : 'messages';
    const start = Number(q.start) * 1000;
    const end = Number(q.end) * 1000;
    const day = 86_400_000;
    const points: unknown[] = [];
    for (const id of ids) {
      if (!templateIds(id)) continue;
      const byDay = new Map<number, { sent: number; clicks: number }>();
      for (const s of this.sends.values()) {
        if (s.templateId !== id || s.route !== route || s.at < start || s.at >= end) continue;
        const d = Math.floor(s.at / day) * day;
        const e = byDay.get(d) ?? { sent: 0, clicks: 0 };
        e.sent++;
        e.clicks += s.clicks;
        byDay.set(d, e);
      }
      for (const [d, e] of [...byDay].sort((a, b) => a[0] - b[0])) {
        points.push({
          template_id: id,
          start: d / 1000,
          end: (d + day) / 1000,
          sent: e.sent,
          clicked: [{ type: 'url_button', button_content: 'Ver oferta', count: e.clicks }],
        });
      }
    }
    return { body: { data: [{ granularity: 'DAILY', product_type: product, data_points: points }], paging: { cursors: { before: 'MAZDZD', after: 'MjQZD' } } } };
  }

  reset(): void {
    this.onboarding.clear();
    this.syncingUntil.clear();
    this.ttl.clear();
    this.sends.clear();
    this.analyticsUnavailable.clear();
  }
}
