import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { kommoAccounts, whatsappAccounts } from '../../db/schema/index';
import { badRequest, notFound } from '../../lib/errors';

/** The Kommo account must be the user's (a foreign id answers 404 like a missing one). */
export async function assertOwnKommoAccount(db: Db, userId: number, id: number) {
  const [row] = await db
    .select({ id: kommoAccounts.id })
    .from(kommoAccounts)
    .where(and(eq(kommoAccounts.id, id), eq(kommoAccounts.userId, userId)))
    .limit(1);
  if (!row) throw notFound('Cuenta Kommo no encontrada');
  return row;
}

export async function assertOwnWhatsAppAccount(db: Db, userId: number, id: number) {
  const [row] = await db
    .select({ id: whatsappAccounts.id, isActive: whatsappAccounts.isActive })
    .from(whatsappAccounts)
    .where(and(eq(whatsappAccounts.id, id), eq(whatsappAccounts.userId, userId)))
    .limit(1);
  if (!row) throw notFound('Cuenta de WhatsApp no encontrada');
  return row;
}

/**
 * `scheduled_at` as the contract carries it: absent, null or '' = no schedule (a draft);
 * a time in the past is refused.
 */
export function parseSchedule(value: string | null | undefined, now = new Date()): Date | null {
  if (value === undefined || value === null || value === '') return null;
  const at = new Date(value);
  if (Number.isNaN(at.getTime())) throw badRequest('Fecha de programación inválida');
  if (at.getTime() <= now.getTime()) throw badRequest('La fecha de programación debe ser futura');
  return at;
}
