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
  messagingLimit: string;
  /** Accepted sends in the last second, for the 130429 check. */
  window: SlidingWindow;
}

export function clampThroughput(perSecond: number): number {
  if (!Number.isFinite(perSecond) || perSecond < 1) throw new Error('throughput must be at least 1 message per second');
  return Math.min(MAX_THROUGHPUT, Math.floor(perSecond));
}

export function makeNumber(n: NumberInput): PhoneNumber {
  for (const key of ['phoneNumberId', 'wabaId', 'token', 'displayPhoneNumber'] as const) {
    if (typeof n?.[key] !== 'string' || n[key] === '') throw new Error(`${key} is required`);
  }
  return {
    phoneNumberId: n.phoneNumberId,
    wabaId: n.wabaId,
    token: n.token,
    displayPhoneNumber: n.displayPhoneNumber.replace(/\D/g, ''),
    verifiedName: n.verifiedName ?? 'Masivo Demo',
    qualityRating: n.qualityRating ?? 'GREEN',
    throughput: clampThroughput(n.throughput ?? DEFAULT_THROUGHPUT),
    messagingLimit: n.messagingLimit ?? 'TIER_10K',
    window: new SlidingWindow(1000),
  };
}

/** GET /{phone_number_id}, limited to `fields` when given (id is always included). */
export function phoneNumberJson(n: PhoneNumber, fields: string[] | null): Record<string, unknown> {
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
    id: n.phoneNumberId,
  };
  const defaults = ['verified_name', 'code_verification_status', 'display_phone_number', 'quality_rating', 'platform_type',
    'throughput', 'name_status', 'whatsapp_business_manager_messaging_limit', 'id'];
  const out: Record<string, unknown> = {};
  for (const f of fields ?? defaults) if (f in full) out[f] = full[f];
  out.id = n.phoneNumberId;
  return out;
}
