import type { GraphClient } from './graph-client';

/** What `GET /{phone_number_id}` tells about a business number. */
export interface PhoneNumberInfo {
  id: string;
  display_phone_number?: string;
  verified_name?: string;
  code_verification_status?: string;
  quality_rating?: string;
  platform_type?: string;
  name_status?: string;
  throughput?: { level?: string };
  /** True for a number also used in the WhatsApp Business app (coexistence). */
  is_on_biz_app?: boolean;
  whatsapp_business_manager_messaging_limit?: string;
  /** Deprecated by Meta, still returned for older numbers. */
  messaging_limit_tier?: string;
}

const PHONE_FIELDS = [
  'id',
  'display_phone_number',
  'verified_name',
  'code_verification_status',
  'quality_rating',
  'platform_type',
  'name_status',
  'throughput',
  'is_on_biz_app',
  'whatsapp_business_manager_messaging_limit',
  'messaging_limit_tier',
].join(',');

export function getPhoneNumberInfo(client: GraphClient, token: string, phoneNumberId: string): Promise<PhoneNumberInfo> {
  return client.call<PhoneNumberInfo>({
    method: 'GET',
    path: `/${encodeURIComponent(phoneNumberId)}`,
    token,
    query: { fields: PHONE_FIELDS },
  });
}
