// Registered business phone numbers and the tokens that may use them.
import { SlidingWindow } from '../shared/sliding-window';
import type { NumberInput, QualityRating } from './types';

export const DEFAULT_THROUGHPUT = 80;
export const MAX_THROUGHPUT = 1000;

export interface PhoneNumber {
  phoneNumberId: string;
  wabaId: string;
  token: string;
  displayPhoneNumber: string;
  verifiedName: string;
  qualityRating: QualityRating;
  throughput: number;
  /** The portfolio's tier, kept in step with it (TIER_250 … TIER_UNLIMITED). */
  messagingLimit: string;
  businessId: string;
  coexistence: boolean;
  /** Accepted sends in the last second, for the 130429 check. */
  window: SlidingWindow;
  /** Sends refused with 130429 (over `throughput` in a 1-s window), for benches to check. */
  throughputErrors: number;
  /**
   * The latest refusals (at most THROUGHPUT_ERRORS_KEPT): when each send arrived, how late its
   * check ran, and how many sends the window already held, so a bench can tell when they came.
   */
  throughputErrorLog: ThroughputError[];
}

export interface ThroughputError {
  /** Arrival (epoch ms), the time the send is counted at. */
  at: number;
  /** How long after its arrival the check ran (ms). */
  checkedAfterMs: number;
  /** Sends already in the 1-s window ending at `at`. */
  inWindow: number;
}

export const THROUGHPUT_ERRORS_KEPT = 1000;

/** Records a 130429 on the number (its count, and the event among the latest). */
export function recordThroughputError(n: PhoneNumber, e: ThroughputError): void {
  n.throughputErrors++;
  n.throughputErrorLog.push(e);
  if (n.throughputErrorLog.length > THROUGHPUT_ERRORS_KEPT) n.throughputErrorLog.shift();
}

export function clampThroughput(perSecond: number): number {
  if (!Number.isFinite(perSecond) || perSecond < 1) throw new Error('throughput must be at least 1 message per second');
  return Math.min(MAX_THROUGHPUT, Math.floor(perSecond));
}

export const COEXISTENCE_THROUGHPUT = 20;

export function makeNumber(n: NumberInput): PhoneNumber {
  for (const key of ['phoneNumberId', 'wabaId', 'token', 'displayPhoneNumber'] as const) {
    if (typeof n?.[key] !== 'string' || n[key] === '') throw new Error(`${key} is required`);
  }
  if (n.businessId !== undefined && (typeof n.businessId !== 'string' || n.businessId === '')) throw new Error('businessId must be a non-empty string');
  const coexistence = n.coexistence === true;
  return {
    phoneNumberId: n.phoneNumberId,
    wabaId: n.wabaId,
    token: n.token,
    displayPhoneNumber: n.displayPhoneNumber.replace(/\D/g, ''),
    verifiedName: n.verifiedName ?? 'Masivo Demo',
    qualityRating: n.qualityRating ?? 'GREEN',
    throughput: coexistence ? COEXISTENCE_THROUGHPUT : clampThroughput(n.throughput ?? DEFAULT_THROUGHPUT),
    messagingLimit: n.messagingLimit ?? 'TIER_10K',
    businessId: n.businessId ?? `9${n.wabaId}`,
    coexistence,
    window: new SlidingWindow(1000),
    throughputErrors: 0,
    throughputErrorLog: [],
  };
}

/** GET /{phone_number_id}, limited to `fields` when given (id is always included). */
export function phoneNumberJson(n: PhoneNumber, fields: string[] | null, legacyShape: 'off' | 'also' | 'only' = 'off'): Record<string, unknown> {
  const full: Record<string, unknown> = {
    verified_name: n.verifiedName,
    code_verification_status: 'VERIFIED',
    display_phone_number: n.displayPhoneNumber,
    quality_rating: n.qualityRating,
    platform_type: 'CLOUD_API',
    throughput: { level: n.throughput > 80 ? 'HIGH' : 'STANDARD' },
    name_status: 'APPROVED',
    whatsapp_business_manager_messaging_limit: n.messagingLimit,
    status: 'CONNECTED',
    account_mode: 'LIVE',
    is_official_business_account: false,
    is_on_biz_app: n.coexistence,
    id: n.phoneNumberId,
  };
  // The deprecated per-number field, with the same tier, when the legacy shape is on.
  if (legacyShape !== 'off') full.messaging_limit_tier = n.messagingLimit;
  if (legacyShape === 'only') delete full.whatsapp_business_manager_messaging_limit;
  const defaults = ['verified_name', 'code_verification_status', 'display_phone_number', 'quality_rating', 'platform_type',
    'throughput', 'name_status', 'whatsapp_business_manager_messaging_limit', 'id'];
  if (legacyShape !== 'off') defaults.push('messaging_limit_tier');
  if (n.coexistence) defaults.push('is_on_biz_app');
  const out: Record<string, unknown> = {};
  for (const f of fields ?? defaults) if (f in full) out[f] = full[f];
  out.id = n.phoneNumberId;
  return out;
}
