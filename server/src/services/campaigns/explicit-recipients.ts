import { and, eq, sql } from 'drizzle-orm';
import { resolveCampaignNumbers, saveCampaignNumbers } from './campaign-numbers';
import { CAMPAIGN_STATUS_LABELS, type Campaign } from '@masivo/contract/campaigns';
import {
  createExplicitCampaignSchema,
  explicitRecipientsBatchSchema,
  type AddExplicitRecipientsResult,
  type CreateExplicitCampaignInput,
  type ExplicitRecipient,
  type ExplicitRecipientsBatch,
} from '@masivo/contract/explicit-recipients';
import {
  isMapped,
  parseLocation,
  templateVariableSlots,
  type TemplateVariableSlot,
} from '@masivo/contract/variables';
import type { AppContext } from '../../context';
import type { Db } from '../../db/client';
import { campaigns, templates, templateVariableMappings } from '../../db/schema/index';
import { jsonParam, rowsOf, type Queryable } from '../../db/sql';
import { toBsuid } from '../../lib/bsuid';
import { AppError, conflict, notFound } from '../../lib/errors';
import { parseWith } from '../../lib/parse-with';
import { phoneKey, toE164 } from '../../lib/phone';
import type { ActivityActor } from '../activity/activity-log';
import { assertTemplateUsable } from '../variables/template-readiness';
import { gateApproval } from './campaign-approvals';
import { campaignDetail, getCampaign, loadCampaignRow } from './campaign-queries';
import { assertOwnWhatsAppAccount, parseSchedule } from './campaign-references';
import { initialSendingHours } from './campaign-sending-hours';

/**
 * Campaigns with explicit recipients (audience_kind 'explicit', 0039): no Kommo filter, but a
 * list of E.164 phones or BSUIDs given by the caller (the public API), each with its own values
 * for the template's slots. Recipients are staged in campaign_explicit_recipients while the
 * campaign is a draft; the first start freezes them through the audience classifier like any
 * audience (freeze-audience.ts), and the sender renders each with its own parameters first
 * (services/variables/render.ts, `params`).
 */

/** How many problems a refused batch lists in its message (the rest are counted). */
const LISTED_ERRORS = 10;

export const NOT_EXPLICIT = 'Esta campaña no tiene destinatarios explícitos: su audiencia es un filtro de Kommo o una lista fija';
const ONLY_DRAFT = (status: keyof typeof CAMPAIGN_STATUS_LABELS) =>
  `Solo se pueden agregar destinatarios a una campaña en borrador (estado actual: ${CAMPAIGN_STATUS_LABELS[status]})`;

/** One problem of a refused batch: `index` is the recipient's place in the batch, from 0. */
export interface ExplicitRecipientProblem {
  index: number;
  message: string;
}

/**
 * A refused batch (422): nothing of it was written. The message lists the first problems as
 * «Destinatario N: …» with N counted from 1; `problems` has them all with the 0-based index.
 */
export class ExplicitRecipientsError extends AppError {
  constructor(readonly problems: ExplicitRecipientProblem[]) {
    const listed = problems.slice(0, LISTED_ERRORS).map((p) => `Destinatario ${p.index + 1}: ${p.message}`);
    const more = problems.length > LISTED_ERRORS ? ` (y ${problems.length - LISTED_ERRORS} problemas más)` : '';
    super(422, `Ningún destinatario del lote se agregó. ${listed.join('; ')}${more}`);
    this.name = 'ExplicitRecipientsError';
  }
}

/**
 * A new campaign with explicit recipients: like createCampaign (create-campaign.ts) without a
 * Kommo account or filters. The template may leave slots unmapped: every recipient must then
 * bring their value. A draft without `scheduled_at`; scheduled with it (the schedule passes the
 * two-person approval gate; recipients can only be added to a draft, so a caller adds them
 * first and schedules with updateCampaign).
 */
export async function createExplicitCampaign(
  ctx: AppContext,
  orgId: number,
  input: CreateExplicitCampaignInput,
  actor?: ActivityActor,
): Promise<Campaign> {
  const data = parseWith(createExplicitCampaignSchema, input);
  const { db } = ctx;
  await assertOwnWhatsAppAccount(db, orgId, data.whatsapp_account_id);
  const { template } = await assertTemplateUsable(db, orgId, data.template_id, data.whatsapp_account_id, { partialMappings: true });
  const numbers = await resolveCampaignNumbers(db, orgId, data.whatsapp_account_id, data.whatsapp_account_ids, template);
  const scheduledAt = parseSchedule(data.scheduled_at);
  const [row] = await db
    .insert(campaigns)
    .values({
      userId: orgId,
      createdBy: actor?.userId ?? null,
      name: data.name,
      description: data.description,
      status: scheduledAt ? 'scheduled' : 'draft',
      messageType: 'template',
      kommoAccountId: null,
      whatsappAccountId: data.whatsapp_account_id,
      templateId: template.id,
      templateName: template.name,
      templateLanguage: template.language,
      filters: { searchQuery: '', tags: [], tagOperator: 'OR', excludedTags: [], customFieldFilters: {} },
      audienceKind: 'explicit',
      totalRecipients: 0,
      pendingCount: 0,
      scheduledAt,
      deferredMaxAttempts: data.deferred_max_attempts,
      deferredWindowHours: data.deferred_window_hours,
      sendingHours: await initialSendingHours(db, data.whatsapp_account_id, data.sending_hours),
    })
    .returning();
  await saveCampaignNumbers(db, orgId, row!.id, numbers);
  if (actor && row?.status === 'scheduled' && (await gateApproval(ctx, actor, row, 'schedule'))) return getCampaign(db, orgId, row.id);
  return campaignDetail(db, orgId, row!);
}

/** A staged recipient as inserted: its place in the batch (from 1), address and parameters. */
interface StagedRow {
  i: number;
  phone: string | null;
  phone_key: string;
  bsuid: string | null;
  params: Record<string, string> | null;
}

/**
 * Adds a batch (1 to 1,000) of explicit recipients to a draft. The whole batch is checked first
 * (each phone parses, each BSUID is one, every parameter names a slot of the template, every
 * slot the template's mappings leave open has a value, header links are https); any problem
 * refuses the batch with a 422 (ExplicitRecipientsError) and nothing is written. Otherwise one
 * statement inserts it after the campaign's last position and sets `total_recipients`, under
 * the campaign row's lock (so concurrent batches take turns and a start cannot slip between).
 * Repeated phones, the blacklist, opt-outs and the frequency cap are not refused here: the
 * start skips those recipients with their reason, as for any audience.
 */
export async function addExplicitRecipients(
  ctx: AppContext,
  orgId: number,
  campaignId: number,
  recipients: ExplicitRecipientsBatch,
): Promise<AddExplicitRecipientsResult> {
  const { db } = ctx;
  const batch = parseBatch(recipients);
  const row = await loadCampaignRow(db, orgId, campaignId);
  if (row.audienceKind !== 'explicit') throw conflict(NOT_EXPLICIT);
  if (row.status !== 'draft') throw conflict(ONLY_DRAFT(row.status));
  if (!row.templateId) throw conflict('La campaña no tiene una plantilla');
  const slots = await openSlots(db, orgId, row.templateId);
  const { rows, problems } = checkRecipients(batch, slots);
  if (problems.length) throw new ExplicitRecipientsError(problems);

  return db.transaction(async (tx) => {
    const [locked] = await rowsOf<{ status: keyof typeof CAMPAIGN_STATUS_LABELS }>(
      tx,
      sql`select status from campaigns where id = ${campaignId} and user_id = ${orgId} for update`,
    );
    if (!locked) throw notFound('Campaña no encontrada');
    if (locked.status !== 'draft') throw conflict(ONLY_DRAFT(locked.status));
    // One statement: the rows travel as one JSON parameter and are placed after the last
    // position (the primary key's index answers max() at once).
    const [result] = await rowsOf<{ total: number | string }>(
      tx,
      sql`with base as (
            select coalesce(max(position), 0) as last from campaign_explicit_recipients
            where campaign_id = ${campaignId} and user_id = ${orgId}
          ),
          ins as (
            insert into campaign_explicit_recipients (campaign_id, user_id, position, phone, phone_key, bsuid, params)
            select ${campaignId}, ${orgId}, base.last + r.i, r.phone, r.phone_key, r.bsuid, r.params
            from base, jsonb_to_recordset(${jsonParam(rows)}) as r(i bigint, phone text, phone_key text, bsuid text, params jsonb)
            returning position
          )
          update campaigns set total_recipients = (select last from base) + (select count(*) from ins), updated_at = now()
          where id = ${campaignId} and user_id = ${orgId}
          returning total_recipients as total`,
    );
    return { added: rows.length, total: Number(result?.total ?? 0) };
  });
}

/** How many explicit recipients a campaign has staged (0 for any other campaign). */
export async function stagedRecipientCount(db: Queryable, orgId: number, campaignId: number): Promise<number> {
  const [row] = await rowsOf<{ n: number | string }>(
    db,
    sql`select count(*)::int as n from campaign_explicit_recipients where campaign_id = ${campaignId} and user_id = ${orgId}`,
  );
  return Number(row?.n ?? 0);
}

/** The batch through the contract's schema; a problem is reported by the recipient's index. */
function parseBatch(recipients: ExplicitRecipientsBatch): ExplicitRecipient[] {
  const parsed = explicitRecipientsBatchSchema.safeParse(recipients);
  if (parsed.success) return parsed.data;
  const problems: ExplicitRecipientProblem[] = [];
  const seen = new Set<number>();
  for (const issue of parsed.error.issues) {
    const [index, ...rest] = issue.path;
    // The list itself (not a list, empty, more than 1,000): one message, nothing by index.
    if (typeof index !== 'number') throw new AppError(422, issue.message);
    if (seen.has(index)) continue;
    seen.add(index);
    const field = rest.length ? `${rest.join('.')}: ` : '';
    problems.push({ index, message: `${field}${issue.message}` });
  }
  throw new ExplicitRecipientsError(problems.sort((a, b) => a.index - b.index));
}

interface Slots {
  byKey: Map<string, TemplateVariableSlot>;
  /** Slots the template's mappings leave without a value: every recipient must give one. */
  required: TemplateVariableSlot[];
}

async function openSlots(db: Db, orgId: number, templateId: number): Promise<Slots> {
  const [template] = await db
    .select({ components: templates.components, parameterFormat: templates.parameterFormat })
    .from(templates)
    .where(and(eq(templates.id, templateId), eq(templates.userId, orgId)))
    .limit(1);
  if (!template) throw conflict('La plantilla de la campaña ya no existe');
  const mappings = await db
    .select({
      templateVariable: templateVariableMappings.templateVariable,
      sourceType: templateVariableMappings.sourceType,
      sourceField: templateVariableMappings.sourceField,
      defaultValue: templateVariableMappings.defaultValue,
    })
    .from(templateVariableMappings)
    .where(and(eq(templateVariableMappings.templateId, templateId), eq(templateVariableMappings.userId, orgId)));
  const mapped = new Map(mappings.map((m) => [m.templateVariable, m]));
  const slots = templateVariableSlots(template.components, template.parameterFormat);
  return { byKey: new Map(slots.map((s) => [s.key, s])), required: slots.filter((s) => !isMapped(mapped.get(s.key))) };
}

/** Every recipient checked against the template; the rows to insert, or the problems. */
function checkRecipients(batch: ExplicitRecipient[], slots: Slots): { rows: StagedRow[]; problems: ExplicitRecipientProblem[] } {
  const rows: StagedRow[] = [];
  const problems: ExplicitRecipientProblem[] = [];
  const accepted = [...slots.byKey.keys()].join(', ') || 'ninguno';
  batch.forEach((recipient, index) => {
    const wrong: string[] = [];
    let phone: string | null = null;
    let key: string | null = null;
    let bsuid: string | null = null;
    if (recipient.phone !== undefined) {
      phone = toE164(recipient.phone);
      if (phone) key = phoneKey(phone);
      else wrong.push(`el teléfono ${recipient.phone} no es un número válido`);
    } else {
      bsuid = toBsuid(recipient.bsuid);
      if (bsuid) key = bsuid;
      else wrong.push('el BSUID no es válido');
    }
    const params: Record<string, string> = {};
    for (const [name, raw] of Object.entries(recipient.params ?? {})) {
      const slot = slots.byKey.get(name);
      if (!slot) {
        wrong.push(`el parámetro «${name}» no corresponde a la plantilla (admite: ${accepted})`);
        continue;
      }
      const value = raw.trim();
      if (!value) continue; // an empty value is no value: the mapping fills the slot
      const problem = valueProblem(slot, value);
      if (problem) wrong.push(problem);
      else params[name] = value;
    }
    for (const slot of slots.required) {
      if (!(slot.key in params) && !wrong.some((w) => w.includes(`«${slot.key}»`))) {
        wrong.push(`falta el parámetro «${slot.key}» (${slot.label}): la plantilla no le asigna un valor`);
      }
    }
    if (wrong.length) problems.push({ index, message: wrong.join('; ') });
    else rows.push({ i: index + 1, phone, phone_key: key!, bsuid, params: Object.keys(params).length ? params : null });
  });
  return { rows, problems };
}

/** What is wrong with a value for its slot, or null: header media is an https link, a location parses. */
function valueProblem(slot: TemplateVariableSlot, value: string): string | null {
  if (slot.kind === 'media') {
    let url: URL | null = null;
    try {
      url = new URL(value);
    } catch {
      url = null;
    }
    if (!url || url.protocol !== 'https:' || !url.hostname) return `el parámetro «${slot.key}» debe ser un enlace https al archivo del encabezado`;
    return null;
  }
  if (slot.kind === 'location' && !parseLocation(value)) {
    return `el parámetro «${slot.key}» debe escribirse como latitud,longitud;nombre;dirección`;
  }
  return null;
}
