import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { rowsOf } from '../../db/sql';
import { ONBOARDED, TERMS_SIGNED } from '../../integrations/whatsapp/marketing-messages';
import type { WabaInfo } from '../../integrations/whatsapp/waba-owner';

/**
 * The Marketing Messages API state of a number (docs/architecture/meta-rules.md "Marketing
 * Messages API"): read on test and refresh (`marketing_messages_onboarding_status`,
 * `owner_business_info`), set live by the `account_update` MM_LITE_TERMS_SIGNED webhook, and
 * closed by a refusal of the route (the sender's fallback to /messages).
 */
export interface MarketingOnboardingRow {
  mmOnboardingStatus: string | null;
  mmTermsStatus?: string | null;
  mmFallbackAt: Date | string | null;
}

/** MARKETING templates of this number go by /marketing_messages: ONBOARDED and not refused since. */
export function marketingRouteOpen(row: MarketingOnboardingRow): boolean {
  return (row.mmOnboardingStatus ?? '').toUpperCase() === ONBOARDED && !row.mmFallbackAt;
}

/**
 * The columns a test or refresh writes. Meta reporting the WABA ONBOARDED again ends a fallback
 * (the operator refreshed after accepting the terms); otherwise a fallback stays.
 */
export function onboardingColumns(info: WabaInfo, current: MarketingOnboardingRow) {
  const status = info.mmOnboardingStatus ?? current.mmOnboardingStatus;
  const reopened = status === ONBOARDED && (current.mmOnboardingStatus ?? '').toUpperCase() !== ONBOARDED;
  return {
    mmOnboardingStatus: status,
    mmTermsStatus: info.mmTermsStatus ?? current.mmTermsStatus ?? null,
    mmCheckedAt: new Date(),
    ...(reopened || (status === ONBOARDED && info.mmTermsStatus === TERMS_SIGNED && current.mmFallbackAt) ? { mmFallbackAt: null, mmFallbackReason: null } : {}),
  };
}

/**
 * `account_update` with `event: MM_LITE_TERMS_SIGNED` (`waba_info: {waba_id, owner_business_id}`):
 * the portfolio accepted the terms, so every number of that WABA is onboarded and any fallback
 * ends; the senders see it at their next account read (a few seconds), with no restart.
 */
export async function applyTermsSigned(db: Db, wabaId: string): Promise<number> {
  if (!wabaId) return 0;
  const rows = await rowsOf<{ id: number }>(db, sql`update whatsapp_accounts set mm_onboarding_status = ${ONBOARDED},
      mm_terms_status = ${TERMS_SIGNED}, mm_checked_at = now(), mm_fallback_at = null, mm_fallback_reason = null, updated_at = now()
    where business_account_id = ${wabaId} and owner_verified_at is not null returning id`);
  return rows.length;
}

/** Meta refused the route for this number: it sends by /messages until Meta reports it onboarded again. */
export async function recordRouteRefused(db: Db, whatsappAccountId: number, reason: string): Promise<void> {
  await db.execute(sql`update whatsapp_accounts set mm_fallback_at = now(), mm_fallback_reason = ${reason.slice(0, 500)}, updated_at = now()
    where id = ${whatsappAccountId} and mm_fallback_at is null`);
}
