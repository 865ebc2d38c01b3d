import { createCampaignSchema, type Campaign, type CreateCampaignInput } from '@masivo/contract/campaigns';
import type { AppContext } from '../../context';
import { campaigns } from '../../db/schema/index';
import {
  assertOwnKommoAccount,
  assertOwnWhatsAppAccount,
  parseSchedule,
} from './campaign-references';
import { parseWith } from '../../lib/parse-with';
import { assertTemplateUsable } from '../variables/template-readiness';
import { campaignDetail, getCampaign } from './campaign-queries';
import { gateApproval } from './campaign-approvals';
import type { ActivityActor } from '../activity/activity-log';
import { countContacts } from '../contacts/filter-engine';
import { initialSendingHours } from './campaign-sending-hours';
import { splitTestConfig } from './split-test';
import { assertVariantsOnNumbers, resolveCampaignNumbers, saveCampaignNumbers } from './campaign-numbers';

/**
 * A new campaign: a draft without `scheduled_at`, scheduled with it. Everything it points
 * at is checked now, and `total_recipients` is the pre-flight's matched count (the audience
 * itself is frozen at the first start).
 */
export async function createCampaign(ctx: AppContext, userId: number, input: CreateCampaignInput, actor?: ActivityActor): Promise<Campaign> {
  const data = parseWith(createCampaignSchema, input);
  const { db } = ctx;
  await assertOwnKommoAccount(db, userId, data.kommo_account_id);
  await assertOwnWhatsAppAccount(db, userId, data.whatsapp_account_id);
  const { template } = await assertTemplateUsable(db, userId, data.template_id, data.whatsapp_account_id);
  const splitTest = await splitTestConfig(db, userId, data);
  // Several numbers: same portfolio, each with the template approved.
  const numbers = await resolveCampaignNumbers(db, userId, data.whatsapp_account_id, data.whatsapp_account_ids, template);
  // A split test on several numbers: every variant's template on every number too.
  await assertVariantsOnNumbers(db, userId, numbers, splitTest?.variants);
  const scheduledAt = parseSchedule(data.scheduled_at);
  // `total_recipients` = every contact the filter matches, the pre-flight's `matched`: the same
  // filter engine, counted from the narrow tables (the full classification waits for the start).
  const total = await countContacts(db, { userId, accountId: data.kommo_account_id, filter: data.filters });

  const [row] = await db
    .insert(campaigns)
    .values({
      userId,
      // Who created it: they may not approve its start themselves (null = the founder).
      createdBy: actor?.userId ?? null,
      name: data.name,
      description: data.description,
      status: scheduledAt ? 'scheduled' : 'draft',
      messageType: 'template',
      kommoAccountId: data.kommo_account_id,
      whatsappAccountId: data.whatsapp_account_id,
      templateId: template.id,
      templateName: template.name,
      templateLanguage: template.language,
      filters: data.filters,
      totalRecipients: total,
      pendingCount: 0,
      scheduledAt,
      deferredMaxAttempts: data.deferred_max_attempts,
      deferredWindowHours: data.deferred_window_hours,
      sendingHours: await initialSendingHours(db, data.whatsapp_account_id, data.sending_hours),
      splitTest,
    })
    .returning();
  await saveCampaignNumbers(db, userId, row!.id, numbers);
  // Created scheduled: the schedule passes the two-person approval gate.
  if (actor && row?.status === 'scheduled' && (await gateApproval(ctx, actor, row, 'schedule'))) return getCampaign(db, userId, row.id);
  return campaignDetail(ctx.db, userId, row!);
}
