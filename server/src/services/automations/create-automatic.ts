import { createAutomaticCampaignSchema, type CreateAutomaticCampaignInput } from '@masivo/contract/automations';
import type { Campaign } from '@masivo/contract/campaigns';
import type { AppContext } from '../../context';
import { campaigns } from '../../db/schema/index';
import { parseWith } from '../../lib/parse-with';
import type { ActivityActor } from '../activity/activity-log';
import { assertOwnKommoAccount, assertOwnWhatsAppAccount } from '../campaigns/campaign-references';
import { campaignDetail } from '../campaigns/campaign-queries';
import { initialSendingHours } from '../campaigns/campaign-sending-hours';
import { assertTemplateUsable } from '../variables/template-readiness';

const NO_FILTER = { searchQuery: '', tags: [], tagOperator: 'OR' as const, excludedTags: [], customFieldFilters: {} };

/**
 * A new automatic campaign, always a draft: «Iniciar» switches it on (through the approval gate,
 * once), «Pausar» pauses it. The number, the template (approved, of the number, every slot
 * mapped) and the Kommo account are checked as for any campaign; the stage is the operator's
 * pick from the account's pipelines (the form lists them), so it is not asked of Kommo again here.
 */
export async function createAutomaticCampaign(ctx: AppContext, orgId: number, input: CreateAutomaticCampaignInput, actor?: ActivityActor): Promise<Campaign> {
  const data = parseWith(createAutomaticCampaignSchema, input);
  const { db } = ctx;
  await assertOwnKommoAccount(db, orgId, data.kommo_account_id);
  await assertOwnWhatsAppAccount(db, orgId, data.whatsapp_account_id);
  const { template } = await assertTemplateUsable(db, orgId, data.template_id, data.whatsapp_account_id);
  const [row] = await db
    .insert(campaigns)
    .values({
      userId: orgId,
      createdBy: actor?.userId ?? null,
      name: data.name,
      description: data.description,
      status: 'draft',
      messageType: 'template',
      kommoAccountId: data.kommo_account_id,
      whatsappAccountId: data.whatsapp_account_id,
      templateId: template.id,
      templateName: template.name,
      templateLanguage: template.language,
      filters: NO_FILTER,
      // Each trigger event adds one recipient: the total grows as events arrive.
      totalRecipients: 0,
      pendingCount: 0,
      audienceKind: 'automatic',
      automationTrigger: data.trigger,
      deferredMaxAttempts: data.deferred_max_attempts,
      deferredWindowHours: data.deferred_window_hours,
      sendingHours: await initialSendingHours(db, data.whatsapp_account_id, data.sending_hours),
    })
    .returning();
  return campaignDetail(db, orgId, row!);
}
