import { and, eq } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { kommoAccounts } from '../../db/schema/kommo';
import { notFound } from '../../lib/errors';
import { refreshInBackground } from './subscription';

/**
 * «Mantener contactos al día» on or off. The webhook subscription follows in the background
 * (subscribed when on; dropped when off and no automation needs the account's leads); the
 * answer never waits on Kommo.
 */
export async function setKeepFresh(ctx: AppContext, orgId: number, accountId: number, keepFresh: boolean) {
  const [row] = await ctx.db
    .update(kommoAccounts)
    .set({ keepFresh, updatedAt: new Date() })
    .where(and(eq(kommoAccounts.id, accountId), eq(kommoAccounts.userId, orgId)))
    .returning();
  if (!row) throw notFound('Cuenta Kommo no encontrada');
  refreshInBackground(ctx, orgId, accountId);
  return row;
}
