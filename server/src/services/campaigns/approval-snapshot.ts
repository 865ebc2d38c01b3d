import { and, eq } from 'drizzle-orm';
import type { ApprovalKind } from '@masivo/contract/campaigns';
import { templateVariableMappings } from '../../db/schema/index';
import type { Db } from '../../db/client';
import type { CampaignRow } from './campaign-view';

/**
 * What an approval covers: the number, the template and its variable mapping, the audience
 * (filters of a Kommo account, or a follow-up's fixed list),
 * the schedule of a scheduled request and the sending hours. Stored with the request and built
 * again when someone decides: any difference means the approver would approve something else.
 */
export async function approvalSnapshot(db: Db, row: CampaignRow, kind: ApprovalKind): Promise<Record<string, unknown>> {
  const mapping = row.templateId
    ? await db
        .select({
          variable: templateVariableMappings.templateVariable,
          sourceType: templateVariableMappings.sourceType,
          sourceField: templateVariableMappings.sourceField,
          defaultValue: templateVariableMappings.defaultValue,
        })
        .from(templateVariableMappings)
        .where(and(eq(templateVariableMappings.templateId, row.templateId), eq(templateVariableMappings.userId, row.userId)))
    : [];
  return {
    whatsapp_account_id: row.whatsappAccountId,
    template_id: row.templateId,
    template: `${row.templateName ?? ''}/${row.templateLanguage ?? ''}`,
    mapping: mapping
      .map((m) => [m.variable, m.sourceType, m.sourceField, m.defaultValue])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    // Not the freeze itself: a request made again after the freeze (the audience grew) keeps
    // the snapshot of the approval it replaces.
    audience:
      row.audienceKind === 'contact_list'
        ? { list: row.id }
        : row.audienceKind === 'explicit'
          ? { explicit: row.id, recipients: row.totalRecipients }
          : { kommo_account_id: row.kommoAccountId, filters: row.filters },
    scheduled_at: kind === 'schedule' && row.scheduledAt ? row.scheduledAt.toISOString() : null,
    sending_hours: row.sendingHours ?? null,
  };
}

/**
 * The snapshot as one string with every object's keys sorted: jsonb reorders keys when it
 * stores them, so the stored snapshot and a fresh one compare equal only in this form.
 */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}
