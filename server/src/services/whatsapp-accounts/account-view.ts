import { marketingMessagesState } from '@masivo/contract/marketing-messages';
import type { WhatsAppAccount } from '@masivo/contract/whatsapp-accounts';
import type { whatsappAccounts } from '../../db/schema/index';
import { effectiveRatePerSecond, metaRatePerSecond } from './throughput';

export type WhatsAppAccountRow = typeof whatsappAccounts.$inferSelect;

export const webhookUrlOf = (publicUrl: string) => `${publicUrl.replace(/\/+$/, '')}/api/webhooks/whatsapp`;

/** The API view of an account: everything the screens show, never the token. */
export function toWhatsAppAccount(row: WhatsAppAccountRow, dailyCount: number, publicUrl: string, limitUsed = 0): WhatsAppAccount {
  return {
    id: row.id,
    name: row.name,
    phone_number: row.phoneNumber,
    display_phone_number: row.displayPhoneNumber,
    phone_number_id: row.phoneNumberId,
    business_account_id: row.businessAccountId,
    kommo_account_id: row.kommoAccountId,
    webhook_verify_token: row.webhookVerifyToken,
    webhook_url: webhookUrlOf(publicUrl),
    notes: row.notes,
    is_active: row.isActive,
    is_verified: row.isVerified,
    quality_rating: row.qualityRating,
    verified_name: row.verifiedName,
    code_verification_status: row.codeVerificationStatus,
    throughput_level: row.throughputLevel,
    is_on_biz_app: row.isOnBizApp,
    throughput_rate_per_second: metaRatePerSecond(row),
    effective_rate_per_second: effectiveRatePerSecond(row.ratePerSecond, row),
    messaging_limit: row.messagingLimit,
    business_portfolio_id: row.businessPortfolioId,
    daily_limit: row.dailyLimit,
    daily_limit_used: limitUsed,
    rate_per_second: row.ratePerSecond,
    default_sending_hours: row.defaultSendingHours ?? null,
    daily_message_count: dailyCount,
    last_message_sent_at: row.lastMessageSentAt?.toISOString() ?? null,
    last_checked_at: row.lastCheckedAt?.toISOString() ?? null,
    has_access_token: !!row.accessTokenEnc,
    marketing_messages: marketingMessagesState({
      onboarding_status: row.mmOnboardingStatus ?? null,
      terms_status: row.mmTermsStatus ?? null,
      checked_at: row.mmCheckedAt?.toISOString() ?? null,
      fallback_at: row.mmFallbackAt?.toISOString() ?? null,
      fallback_reason: row.mmFallbackReason ?? null,
    }),
    restriction: restrictionOf(row),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** The number's restriction while it lasts (number-restriction.ts keeps the columns; `restrictedNowSql` is the same rule). */
function restrictionOf(row: WhatsAppAccountRow, now = Date.now()): WhatsAppAccount['restriction'] {
  if (!row.restrictedAt || (row.restrictedUntil && row.restrictedUntil.getTime() <= now)) return null;
  return { since: row.restrictedAt.toISOString(), until: row.restrictedUntil?.toISOString() ?? null, reason: row.restrictedReason ?? null };
}
