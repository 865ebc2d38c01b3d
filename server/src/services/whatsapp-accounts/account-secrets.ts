import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { whatsappAccounts } from '../../db/schema/index';
import { notFound } from '../../lib/errors';
import type { SecretBox } from '../../lib/secret-box';
import { effectiveRatePerSecond, metaRatePerSecond } from './throughput';
import { marketingRouteOpen } from './marketing-onboarding';

export interface SendingAccount {
  id: number;
  userId: number;
  phoneNumberId: string;
  businessAccountId: string;
  /** Decrypted; keep it in memory only, never log or return it. */
  accessToken: string;
  /** The rate to pace at: the operator's, capped by Meta's throughput level (throughput.ts). */
  ratePerSecond: number;
  /** The operator's configured rate (the ceiling); ratePerSecond when absent. */
  configuredRatePerSecond?: number;
  /** Meta's rate for the number's level; null or absent while unknown. */
  metaRatePerSecond?: number | null;
  isActive: boolean;
  qualityRating: string | null;
  /**
   * 0047: the Marketing Messages API is open for this number: its WABA is ONBOARDED and Meta has
   * not refused the route since (engine/campaigns/marketing-route.ts). Absent: closed.
   */
  marketingRoute?: boolean;
}

/**
 * What the campaign sender needs to talk to Meta for one account. Background jobs act for
 * the account's owner, so this lookup is by id alone; a missing account is a 404 AppError.
 */
export async function loadSendingAccount(db: Db, secrets: SecretBox, whatsappAccountId: number): Promise<SendingAccount> {
  const [row] = await db.select().from(whatsappAccounts).where(eq(whatsappAccounts.id, whatsappAccountId)).limit(1);
  if (!row) throw notFound('Cuenta de WhatsApp no encontrada');
  return {
    id: row.id,
    userId: row.userId,
    phoneNumberId: row.phoneNumberId,
    businessAccountId: row.businessAccountId,
    accessToken: secrets.open(row.accessTokenEnc),
    ratePerSecond: effectiveRatePerSecond(row.ratePerSecond, row),
    configuredRatePerSecond: row.ratePerSecond,
    metaRatePerSecond: metaRatePerSecond(row),
    isActive: row.isActive,
    qualityRating: row.qualityRating,
    marketingRoute: marketingRouteOpen(row),
  };
}
