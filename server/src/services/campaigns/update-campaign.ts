import { CAN_EDIT, updateCampaignSchema, type Campaign, type UpdateCampaignInput } from '@masivo/contract/campaigns';
import { updateCampaignNumbers } from './campaign-numbers';
import type { AppContext } from '../../context';
import { campaigns } from '../../db/schema/index';
import { badRequest, conflict } from '../../lib/errors';

export const SPLIT_TEST_FIXED = 'La plantilla y el número de una prueba A/B no se pueden cambiar: crea otra campaña';
import { countContacts } from '../contacts/filter-engine';
import {
  assertOwnKommoAccount,
  assertOwnWhatsAppAccount,
  parseSchedule,
} from './campaign-references';
import { parseWith } from '../../lib/parse-with';
import { assertTemplateUsable } from '../variables/template-readiness';
import { campaignDetail, getCampaign, loadCampaignRow } from './campaign-queries';
import { gateAfterEdit, voidOnEdit } from './campaign-approvals';
import { SYSTEM, type ActivityActor } from '../activity/activity-log';
import { refuse, saveEdit } from './campaign-transitions';
import { stagedRecipientCount } from './explicit-recipients';
import { updateHoursWhileSending, zonesForNewHours } from './campaign-sending-hours';

/** A follow-up's frozen contact list is its audience: filters never replace it silently. */
export const FIXED_LIST_AUDIENCE =
  'La audiencia de esta campaña es una lista fija de contactos de otra campaña: no se puede reemplazar por filtros ni cambiar de cuenta Kommo';

/** A campaign with explicit recipients has no Kommo account and no filters. */
export const EXPLICIT_AUDIENCE =
  'La audiencia de esta campaña es una lista explícita de destinatarios: no se puede reemplazar por filtros ni asignarle una cuenta Kommo';
export const EXPLICIT_TEMPLATE_FIXED =
  'La plantilla no se puede cambiar: los destinatarios explícitos ya cargados tienen parámetros de esta plantilla';

/**
 * Edits a campaign that is not sending. Fields left out stay as they are. The audience
 * (Kommo account and filters) is fixed once the first start froze it; the WhatsApp account
 * and template may change while paused (e.g. to replace a template Meta paused).
 */
export async function updateCampaign(ctx: AppContext, userId: number, id: number, input: UpdateCampaignInput, actor?: ActivityActor): Promise<Campaign> {
  const data = parseWith(updateCampaignSchema, input);
  const { db } = ctx;
  const row = await loadCampaignRow(db, userId, id);
  const hoursOnly = await updateHoursWhileSending(ctx, row, data);
  if (hoursOnly) return hoursOnly;
  if (!CAN_EDIT.includes(row.status)) throw refuse('edit', row.status);

  const changes: Partial<typeof campaigns.$inferInsert> = { updatedAt: new Date() };
  // Editing a campaign that waits for approval voids the request: it leaves pending_approval
  // as a draft (paused when its audience is already frozen) unless the edit schedules it.
  const pending = row.status === 'pending_approval';
  if (pending) changes.status = row.audienceFrozenAt ? 'paused' : 'draft';
  const wasPaused = row.status === 'paused' || (pending && !!row.audienceFrozenAt);
  if (data.name !== undefined) changes.name = data.name;
  if (data.description !== undefined) changes.description = data.description;
  if (data.deferred_max_attempts !== undefined) changes.deferredMaxAttempts = data.deferred_max_attempts;
  if (data.deferred_window_hours !== undefined) changes.deferredWindowHours = data.deferred_window_hours;
  if (data.sending_hours !== undefined) changes.sendingHours = data.sending_hours;

  const kommoChanged = data.kommo_account_id !== undefined && data.kommo_account_id !== row.kommoAccountId;
  const filtersChanged = data.filters !== undefined && JSON.stringify(data.filters) !== JSON.stringify(row.filters);
  if ((kommoChanged || filtersChanged) && row.audienceFrozenAt) {
    throw conflict('La audiencia ya se congeló al iniciar la campaña: no se pueden cambiar la cuenta Kommo ni los filtros');
  }
  if ((kommoChanged || filtersChanged) && row.audienceKind === 'contact_list') throw conflict(FIXED_LIST_AUDIENCE);
  if ((kommoChanged || filtersChanged) && row.audienceKind === 'explicit') throw conflict(EXPLICIT_AUDIENCE);
  const kommoAccountId = data.kommo_account_id ?? row.kommoAccountId;
  if (kommoChanged) await assertOwnKommoAccount(db, userId, data.kommo_account_id!);
  if (kommoChanged || filtersChanged) {
    if (!kommoAccountId) throw badRequest('La cuenta Kommo es requerida');
    const filter = data.filters ?? row.filters;
    changes.kommoAccountId = kommoAccountId;
    changes.filters = filter;
    changes.totalRecipients = await countContacts(db, { userId, accountId: kommoAccountId, filter });
  }

  const whatsappChanged = data.whatsapp_account_id !== undefined && data.whatsapp_account_id !== row.whatsappAccountId;
  const templateChanged = data.template_id !== undefined && data.template_id !== row.templateId;
  // A split test's variants were checked against its number and start with its template.
  if ((whatsappChanged || templateChanged) && row.splitTest) throw conflict(SPLIT_TEST_FIXED);
  if (whatsappChanged) await assertOwnWhatsAppAccount(db, userId, data.whatsapp_account_id!);
  if (whatsappChanged || templateChanged) {
    const whatsappAccountId = data.whatsapp_account_id ?? row.whatsappAccountId;
    const templateId = data.template_id ?? row.templateId;
    if (!whatsappAccountId) throw badRequest('La cuenta de WhatsApp es requerida');
    if (!templateId) throw badRequest('La plantilla es requerida');
    const explicit = row.audienceKind === 'explicit';
    // Explicit recipients' parameters were checked against the template: it stays while they are there.
    if (explicit && templateChanged && (await stagedRecipientCount(db, userId, row.id)) > 0) throw conflict(EXPLICIT_TEMPLATE_FIXED);
    const { template } = await assertTemplateUsable(db, userId, templateId, whatsappAccountId, { partialMappings: explicit });
    Object.assign(changes, {
      whatsappAccountId,
      templateId,
      templateName: template.name,
      templateLanguage: template.language,
    });
  }
  // Several numbers: checked against the (new) template's number, saved with the edit.
  await updateCampaignNumbers(db, userId, row, changes, data.whatsapp_account_ids, whatsappChanged || templateChanged);

  if (data.scheduled_at !== undefined) {
    const scheduledAt = parseSchedule(data.scheduled_at);
    if (wasPaused) {
      if (scheduledAt) throw conflict('Solo se puede programar una campaña en borrador o programada');
    } else {
      changes.scheduledAt = scheduledAt;
      changes.status = scheduledAt ? 'scheduled' : 'draft';
    }
  }

  await zonesForNewHours(db, row, data.sending_hours);
  const updated = await saveEdit(db, row, changes);
  const who = actor ?? SYSTEM(userId);
  await voidOnEdit(db, who, row);
  // Saved as scheduled: the schedule passes the approval gate (the engine's own edits do not).
  if (actor && (await gateAfterEdit(ctx, actor, updated))) return getCampaign(db, userId, id);
  ctx.signals.campaignChanged(id);
  return campaignDetail(ctx.db, userId, updated);
}
