import { contactFilterSchema } from '@masivo/contract/contact-filter';
import { CAMPAIGN_STATUSES, type Campaign } from '@masivo/contract/campaigns';
import type { campaigns } from '../../db/schema/index';
import { followUpOf } from './follow-up-view';

export type CampaignRow = typeof campaigns.$inferSelect;

const PAUSE_ORIGINS = ['operator', 'template', 'engine'] as const;
const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The API view of a campaign (contract campaignSchema). */
export function toCampaign(row: CampaignRow): Campaign {
  const parsedFilters = contactFilterSchema.safeParse(row.filters ?? {});
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    status: (CAMPAIGN_STATUSES as readonly string[]).includes(row.status) ? row.status : 'draft',
    message_type: row.messageType,
    message_content: row.messageContent,
    template_id: row.templateId,
    template_name: row.templateName,
    template_language: row.templateLanguage,
    kommo_account_id: row.kommoAccountId,
    whatsapp_account_id: row.whatsappAccountId,
    filters: parsedFilters.success ? parsedFilters.data : contactFilterSchema.parse({}),
    total_recipients: row.totalRecipients,
    messages_sent: row.messagesSent,
    delivered_count: row.deliveredCount,
    read_count: row.readCount,
    failed_count: row.failedCount,
    skipped_count: row.skippedCount,
    unknown_count: row.unknownCount,
    pending_count: row.pendingCount,
    deferred_count: row.deferredCount,
    deferred_max_attempts: row.deferredMaxAttempts,
    deferred_window_hours: row.deferredWindowHours,
    limit_wait_until: iso(row.limitWaitUntil),
    sending_hours: row.sendingHours ?? null,
    hours_wait_until: iso(row.hoursWaitUntil),
    pause_reason: row.pauseReason,
    pause_origin: PAUSE_ORIGINS.includes(row.pauseOrigin as never) ? (row.pauseOrigin as Campaign['pause_origin']) : null,
    held_count: 0,
    template_risk: null,
    scheduled_at: iso(row.scheduledAt),
    started_at: iso(row.startedAt),
    completed_at: iso(row.completedAt),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    audience_kind: row.audienceKind === 'contact_list' || row.audienceKind === 'explicit' || row.audienceKind === 'automatic' ? row.audienceKind : 'filter',
    follow_up_of: followUpOf(row),
  };
}
