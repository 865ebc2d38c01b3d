// Inputs of the WhatsApp simulator's programmatic and control APIs.

export type QualityRating = 'GREEN' | 'YELLOW' | 'RED' | 'NA' | 'UNKNOWN';
export type TemplateCategory = 'MARKETING' | 'UTILITY' | 'AUTHENTICATION';
/** `offline`: the phone never comes online; a marketing TTL sent by the Marketing Messages API expires (410). */
export type RecipientBehaviour = 'not_on_whatsapp' | 'opted_out' | 'pair_limit' | 'offline' | 'ok';
export type WhatsAppFaultKind = '5xx' | 'timeout' | 'lost_response' | 'invalid_token' | 'code';

export interface NumberInput {
  phoneNumberId: string;
  wabaId: string;
  token: string;
  displayPhoneNumber: string;
  verifiedName?: string;
  qualityRating?: QualityRating;
  /** Messages per second; default 80, at most 1000. */
  throughput?: number;
  /**
   * e.g. 'TIER_250', 'TIER_2K', 'TIER_10K', 'TIER_100K', 'TIER_UNLIMITED'. The first number of a portfolio
   * sets the portfolio's limit; a later number without a tier shows the portfolio's.
   */
  messagingLimit?: string;
  /** Business portfolio that owns the WABA; default `9` + wabaId. Numbers of one portfolio share its limit. */
  businessId?: string;
  /** WhatsApp Business app number on Cloud API too: fixed at 20 msg/s, reported with is_on_biz_app. */
  coexistence?: boolean;
}

/** Meta's 2025–26 rules; every default keeps the simulator's older behaviour. */
export interface MetaRulesConfig {
  /** Fail sends that would reach one unique user more than the portfolio limit in a moving 24 h. */
  enforcePortfolioLimit: boolean;
  /** Error code of the failed status for a send past the portfolio limit (Meta documents none). */
  portfolioLimitCode: number;
  /** Old field shapes: 'off' new only, 'also' new and old, 'only' old only (GET fields); webhooks add the old fields unless 'off'. */
  legacyLimitShape: 'off' | 'also' | 'only';
  /** Share of (user, day) pairs whose MARKETING template sends fail with 131049. */
  marketingLimitShare: number;
  /** MARKETING templates to +1 numbers fail with 131049. */
  usMarketingBlocked: boolean;
  /** Share of users that are username users (webhooks carry only their BSUID). */
  usernameShare: number;
  /** Every status also carries recipient_user_id (Meta's behaviour once BSUIDs roll out). */
  bsuidInAllStatuses: boolean;
  /** Share of sends of a new MARKETING template answered `held_for_quality_assessment`. */
  heldForQualityShare: number;
  /** How long a marketing template counts as new, from its first send. */
  heldWindowMs: number;
  /** A RED quality score pauses the template (FIRST_PAUSE, SECOND_PAUSE, then DISABLED). */
  pauseOnRed: boolean;
  /** Real time of the first and second pause before the template unpauses (Meta: 3 h, 6 h). */
  pauseDurationsMs: [number, number];
  /** 131057 window of a throughput upgrade (Meta: up to 1 minute). */
  throughputUpgradeMs: number;
  /** Keep the deprecated `billable` in pricing. */
  pricingBillableField: boolean;
  /** MARKETING sends are priced as category `marketing_lite`. */
  marketingLite: boolean;
  /** Every send is inside a free entry point window (type free_entry_point, not billable). */
  freeEntryPoint: boolean;
  /** Share of status POSTs that also carry a value-level `errors` array. */
  valueErrorsShare: number;
}

export interface TemplateInput {
  wabaId: string;
  name: string;
  language: string;
  category: TemplateCategory;
  /** Default APPROVED. */
  status?: string;
  components: any[];
  parameter_format?: 'POSITIONAL' | 'NAMED';
  quality_score?: { score: string; date?: number };
  /** `message_send_ttl_seconds` (Marketing Messages API honours a marketing TTL). */
  message_send_ttl_seconds?: number;
}

export interface WhatsAppFault {
  kind: WhatsAppFaultKind;
  /** How many sends it affects; default 1. */
  count?: number;
  /** kind 'code': the Graph error code to answer with. */
  code?: number;
  /** Only sends from this number; any number when absent. */
  phoneNumberId?: string;
  /** Override the HTTP status ('5xx' defaults to 503, 'code' to the code's official status). */
  status?: number;
}

/**
 * Network jitter on the way in, before a send is timestamped and counted for throughput:
 * baseMs plus an exponential tail of mean tailMeanMs, never more than capMs in all.
 */
export interface LatencyJitter {
  baseMs: number;
  tailMeanMs: number;
  capMs: number;
}

/**
 * Recipients answer by themselves (off by default; the demo turns it on): of the messages
 * delivered, a share taps one of the template's quick-reply buttons and another share writes a
 * text, each `delayMs` after the message's last status.
 */
export interface AutoReplies {
  /** Share (0–1) of delivered messages answered with a quick-reply tap (templates with quick replies). */
  tapShare: number;
  /** Share (0–1) of delivered messages answered with a text. */
  replyShare: number;
  delayMs: number;
  /** Texts to pick from; a default list of Spanish answers when absent. */
  texts?: string[];
}

export interface WhatsAppConfig {
  webhookUrl: string | null;
  /** Recipients reply and tap by themselves; null: off. */
  autoReplies?: AutoReplies | null;
  appSecret: string;
  latencyMs: number;
  /** Null: sends arrive at once. */
  latencyJitter: LatencyJitter | null;
  deliveryRate: number;
  readRate: number;
  /** Read rate by template name, over readRate (recipients who read one template more than another: split tests). */
  templateReadRates?: Record<string, number>;
  /** Share of a template's sends whose recipient blocked the business, by name (the template comparison's BLOCK_RATE order). */
  templateBlockRates?: Record<string, number>;
  failRate: number;
  /** Error code of `failed` statuses drawn by failRate. */
  failCode: number;
  statusDelayMs: number;
  approvalDelayMs: number;
  rejectTemplatesMatching: RegExp | null;
  webhookBatchMax: number;
  duplicateWebhooks: boolean;
  reorderWebhooks: boolean;
  webhookRetry: boolean;
  /** Messages to one recipient from one number allowed within 6 s before 131056. */
  pairLimit: number;
  /** Management calls per WABA per hour before 80008. */
  managementHourlyLimit: number;
}

export interface RecordedMessage {
  wamid: string;
  phoneNumberId: string;
  /** Recipient digits, no '+'. */
  to: string;
  template: string;
  language: string;
  components: any[];
  bizOpaque: string | null;
  /** Accept time, ms since the epoch. */
  at: number;
}
