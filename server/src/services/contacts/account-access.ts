import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { kommoAccounts } from '../../db/schema/kommo';
import { notFound } from '../../lib/errors';

export const ACCOUNT_NOT_FOUND = 'Cuenta Kommo no encontrada';

/** The access check every contacts and blacklist call starts with: a foreign id is simply not found. */
export async function ownedAccount(db: Db, userId: number, accountId: number) {
  const [row] = await db
    .select({
      id: kommoAccounts.id,
      subdomain: kommoAccounts.subdomain,
      phoneFieldId: kommoAccounts.phoneFieldId,
      country: kommoAccounts.country,
      defaultCountry: kommoAccounts.defaultCountry,
    })
    .from(kommoAccounts)
    .where(and(eq(kommoAccounts.id, accountId), eq(kommoAccounts.userId, userId)));
  if (!row) throw notFound(ACCOUNT_NOT_FOUND);
  return row;
}
