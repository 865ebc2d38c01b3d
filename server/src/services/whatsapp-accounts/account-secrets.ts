import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { whatsappAccounts } from '../../db/schema/index';
import { notFound } from '../../lib/errors';
import type { SecretBox } from '../../lib/secret-box';

export interface SendingAccount {
  id: number;
  userId: number;
  phoneNumberId: string;
  businessAccountId: string;
  /** Decrypted; keep it in memory only, never log or return it. */
  accessToken: string;
  ratePerSecond: number;
  isActive: boolean;
  qualityRating: string | null;
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
    ratePerSecond: row.ratePerSecond,
    isActive: row.isActive,
    qualityRating: row.qualityRating,
  };
}
