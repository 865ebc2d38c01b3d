import type { Template } from '@masivo/contract/templates';
import { campaignIncompatibility, placeholderNamesOf } from '@masivo/contract/variables';
import type { templates } from '../../db/schema/index';

export type TemplateRow = typeof templates.$inferSelect;

export function toTemplate(row: TemplateRow): Template {
  const incompatible = campaignIncompatibility(row.components);
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
    has_variables: row.components.some((c) => placeholderNamesOf(c.text).length > 0),
    parameter_format: row.parameterFormat,
    quality_score: row.qualityScore,
    status_detail: row.statusDetail,
    category_change: row.categoryChange ?? null,
    message_send_ttl_seconds: row.messageSendTtlSeconds ?? null,
    campaign_compatible: incompatible === null,
    incompatible_reason: incompatible,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
