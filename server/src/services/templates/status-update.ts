import { and, eq, inArray, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { templates, whatsappAccounts } from '../../db/schema/index';
import { localTemplateStatus, rejectionReasonOf } from './template-status';

export interface TemplateStatusUpdate {
  event: string;
  message_template_id: number | string;
  message_template_name: string;
  message_template_language: string;
  reason?: string | null;
  rejection_info?: { reason?: string; recommendation?: string } | null;
  /** PAUSED: `title` FIRST_PAUSE / SECOND_PAUSE (also sent on lock and unlock). */
  other_info?: { title?: string; description?: string } | null;
}

/** What changed locally: the copies the event reached and their new status and detail. */
export interface AppliedTemplateStatus {
  templateIds: number[];
  status: string;
  detail: string | null;
}

/**
 * Applies a `message_template_status_update` webhook change to every local copy of that
 * template: the same WABA can be registered by several users, and each copy follows Meta.
 * Only accounts verified as holding the WABA (whatsapp-accounts/verify-ownership.ts) receive it.
 * Matched by Meta's id, or by name + language for a copy whose submission reply was lost.
 * FLAGGED only warns about quality (the template stays usable): it is kept as the status
 * detail; DELETED removes the local copies as a sync would. PAUSED keeps Meta's
 * `other_info.title` (FIRST_PAUSE, SECOND_PAUSE) as the detail; UNPAUSED and REINSTATED
 * make the template approved again. Returns the copies whose status changed, so campaigns
 * can follow (template-risk.ts).
 */
export async function applyTemplateStatusUpdate(
  db: Db,
  wabaId: string,
  value: TemplateStatusUpdate,
  /** Meta's time of the event (the entry's `time`), when known. */
  eventAt: Date | null = null,
): Promise<AppliedTemplateStatus | null> {
  const event = String(value.event ?? '').toUpperCase();
  if (!event) return null;
  const accountIds = (
    await db
      .select({ id: whatsappAccounts.id })
      .from(whatsappAccounts)
      // Only accounts whose token Meta confirmed for this WABA: typed ids prove nothing.
      .where(and(eq(whatsappAccounts.businessAccountId, String(wabaId)), sql`${whatsappAccounts.ownerVerifiedAt} is not null`))
  ).map((r) => r.id);
  if (!accountIds.length) return null;

  const metaId = String(value.message_template_id);
  const match = and(
    inArray(templates.whatsappAccountId, accountIds),
    or(
      eq(templates.metaId, metaId),
      and(
        eq(templates.name, value.message_template_name),
        eq(templates.language, value.message_template_language),
        sql`${templates.metaId} is null`,
      ),
    ),
  );

  if (event === 'DELETED') {
    await db.delete(templates).where(match);
    return null;
  }
  if (event === 'FLAGGED') {
    await db.update(templates).set({ statusDetail: 'FLAGGED', updatedAt: new Date() }).where(match);
    return null;
  }
  const status = localTemplateStatus(event);
  const title = typeof value.other_info?.title === 'string' ? value.other_info.title.trim().toUpperCase().slice(0, 64) : '';
  const statusDetail = status === 'paused' ? title || null : null;
  const rejectionReason =
    status === 'rejected' || status === 'disabled' || status === 'paused'
      ? rejectionReasonOf(value.reason, value.rejection_info?.reason ?? null)
      : null;
  // Monotonic: an older event (replayed, or overtaken by a newer one) changes nothing, so a
  // stale APPROVED never brings back a template Meta paused or disabled since. Within one
  // second (Meta's resolution) only a restriction may follow another status.
  const newer = eventAt
    ? sql`(${templates.statusEventAt} is null or ${templates.statusEventAt} < ${eventAt.toISOString()}::timestamptz
          or (${templates.statusEventAt} = ${eventAt.toISOString()}::timestamptz
              and not (${status}::text = 'approved' and ${templates.status} in ('paused', 'disabled'))))`
    : undefined;
  const updated = await db
    .update(templates)
    .set({ status, statusDetail, rejectionReason, metaId, updatedAt: new Date(), ...(eventAt ? { statusEventAt: eventAt } : {}) })
    .where(and(match, newer))
    .returning({ id: templates.id });
  return { templateIds: updated.map((r) => r.id), status, detail: statusDetail };
}
