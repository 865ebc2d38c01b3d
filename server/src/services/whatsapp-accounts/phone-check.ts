import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { whatsappAccounts } from '../../db/schema/index';
import type { GraphClient } from '../../integrations/whatsapp/graph-client';
import { getPhoneNumberInfo, type PhoneNumberInfo } from '../../integrations/whatsapp/phone-numbers';
import type { SecretBox } from '../../lib/secret-box';
import type { WhatsAppAccountRow } from './account-view';
import { getWabaInfo } from '../../integrations/whatsapp/waba-owner';
import { onboardingColumns } from './marketing-onboarding';
import { parseDailyLimit, portfolioKey, setPortfolioLimit } from './messaging-limit';

/**
 * Reads the number from Meta (`GET /{phone_number_id}`) and stores what it says: display
 * number, verified name, quality, verification (is_verified = VERIFIED), throughput level,
 * coexistence with the WhatsApp Business app (`is_on_biz_app`) and messaging limit. The sender
 * re-reads the account every few seconds, so a new level changes its rate without a restart.
 * The WABA's Marketing Messages API state is read in the same pass (marketing-onboarding.ts). Throws GraphApiError (Spanish, with Meta's reason) when Meta refuses.
 */
export async function checkPhoneNumber(
  db: Db,
  secrets: SecretBox,
  graph: GraphClient,
  row: WhatsAppAccountRow,
): Promise<WhatsAppAccountRow> {
  const info = await getPhoneNumberInfo(graph, secrets.open(row.accessTokenEnc), row.phoneNumberId);
  const waba = await getWabaInfo(graph, secrets.open(row.accessTokenEnc), row.businessAccountId);
  const portfolioId = waba.portfolioId ?? row.businessPortfolioId;
  const [updated] = await db
    .update(whatsappAccounts)
    .set({
      ...phoneInfoColumns(info),
      ...onboardingColumns(waba, row),
      businessPortfolioId: portfolioId,
      lastCheckedAt: new Date(),
      updatedAt: new Date(),
    })
    .where(eq(whatsappAccounts.id, row.id))
    .returning();
  // The limit belongs to the portfolio: every account of the tenant on it gets the new value.
  const limit = parseDailyLimit(info.whatsapp_business_manager_messaging_limit) ?? parseDailyLimit(info.messaging_limit_tier);
  if (updated && limit !== null) {
    await setPortfolioLimit(db, { userId: updated.userId, portfolioId: portfolioKey(updated) }, limit, new Date());
    const [fresh] = await db.select().from(whatsappAccounts).where(eq(whatsappAccounts.id, row.id));
    return fresh ?? updated;
  }
  return updated ?? row;
}

function phoneInfoColumns(info: PhoneNumberInfo) {
  const verification = info.code_verification_status?.toUpperCase() ?? null;
  return {
    displayPhoneNumber: info.display_phone_number ?? null,
    verifiedName: info.verified_name ?? null,
    qualityRating: info.quality_rating?.toUpperCase() ?? null,
    codeVerificationStatus: verification,
    isVerified: verification === 'VERIFIED',
    throughputLevel: info.throughput?.level?.toUpperCase() ?? null,
    isOnBizApp: typeof info.is_on_biz_app === 'boolean' ? info.is_on_biz_app : null,
    messagingLimit: info.whatsapp_business_manager_messaging_limit ?? info.messaging_limit_tier ?? null,
  };
}
