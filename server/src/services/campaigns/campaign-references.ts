import { and, eq } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '../../db/client';
import { kommoAccounts, whatsappAccounts } from '../../db/schema/index';
import { badRequest, notFound } from '../../lib/errors';
import { assertTemplateUsable } from '../variables/template-readiness';

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

/** The template must be on that WhatsApp account, approved, and fully mapped. */
export async function assertCampaignTemplate(db: Db, userId: number, templateId: number, whatsappAccountId: number) {
  return assertTemplateUsable(db, userId, templateId, whatsappAccountId);
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

/** Services are also called directly (engine, tests): validate with the route's schema. */
export function parseWith<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.join('.');
  throw badRequest(field ? `${field}: ${issue?.message}` : (issue?.message ?? 'Datos inválidos'));
}
