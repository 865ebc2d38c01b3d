// Inputs of the WhatsApp simulator's programmatic and control APIs.

export type QualityRating = 'GREEN' | 'YELLOW' | 'RED' | 'NA' | 'UNKNOWN';
export type TemplateCategory = 'MARKETING' | 'UTILITY' | 'AUTHENTICATION';
export type RecipientBehaviour = 'not_on_whatsapp' | 'opted_out' | 'pair_limit' | 'ok';
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
  /** e.g. 'TIER_250', 'TIER_2K', 'TIER_10K', 'TIER_100K', 'TIER_UNLIMITED'. */
  messagingLimit?: string;
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

export interface WhatsAppConfig {
  webhookUrl: string | null;
  appSecret: string;
  latencyMs: number;
  /** Null: sends arrive at once. */
  latencyJitter: LatencyJitter | null;
  deliveryRate: number;
  readRate: number;
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
