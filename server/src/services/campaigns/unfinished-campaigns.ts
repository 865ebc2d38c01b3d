import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { conflict } from '../../lib/errors';
import { rowsOf } from '../../db/sql';

/** Statuses of a campaign that may still send: its accounts must outlive it. */
const UNFINISHED = ['draft', 'scheduled', 'sending', 'paused', 'pending_approval'];

/**
 * Refuses to delete a Kommo or WhatsApp account while a campaign that is not finished uses it.
 * Deleting the Kommo account would drop the blacklist that campaign checks before each send,
 * and deleting the number would strand its recipients. Call inside the delete's transaction,
 * after locking the account row, so a campaign created meanwhile waits for the outcome.
 */
export async function assertNoUnfinishedCampaigns(
  tx: Pick<Db, 'execute'>,
  userId: number,
  account: { kommoAccountId: number } | { whatsappAccountId: number },
): Promise<void> {
  const column = 'kommoAccountId' in account ? sql`kommo_account_id = ${account.kommoAccountId}` : sql`whatsapp_account_id = ${account.whatsappAccountId}`;
  const [row] = await rowsOf<{ n: number }>(tx, sql`
    select count(*)::int as n from campaigns
    where user_id = ${userId} and ${column}
      and status in (${sql.join(UNFINISHED.map((s) => sql`${s}`), sql`, `)})`);
  const n = Number(row?.n ?? 0);
  if (n > 0) {
    throw conflict(
      `No se puede eliminar la cuenta: tiene ${n} ${n === 1 ? 'campaña sin terminar' : 'campañas sin terminar'} (borrador, programada, enviando, pausada o pendiente de aprobación). Termina o elimina primero esas campañas.`,
    );
  }
}
