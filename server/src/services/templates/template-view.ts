import type { Template } from '@masivo/contract/templates';
import { hasPlaceholders } from '@masivo/contract/variables';
import type { templates } from '../../db/schema/index';

export type TemplateRow = typeof templates.$inferSelect;

export function toTemplate(row: TemplateRow): Template {
  return {
    id: row.id,
    whatsapp_account_id: row.whatsappAccountId,
    kommo_account_id: row.kommoAccountId,
    meta_id: row.metaId,
    name: row.name,
    language: row.language,
    category: row.category,
    status: row.status,
    components: row.components,
    rejection_reason: row.rejectionReason,
    submission_error: row.submissionError,
    has_variables: row.components.some((c) => hasPlaceholders(c.text)),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
