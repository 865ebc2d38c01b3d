import { z } from 'zod';
import { csvFormatSchema, isWellFormedText } from './common';
import { contactFilterSchema } from './contact-filter';
import { templateCategoryChangeSchema } from './templates';
import { sendingHoursSchema, sendingHoursViewSchema } from './sending-hours';
import { campaignMarketingSchema, SEND_ROUTES } from './marketing-messages';
import { automationViewSchema } from './automation-trigger';
import { abTestSchema, splitTestViewSchema, splitVariantsSchema } from './split-test';

export { sendingHoursSchema };

/** Spec §4 campaign statuses with their Spanish labels; an unknown status shows as draft. */
export const CAMPAIGN_STATUSES = ['draft', 'scheduled', 'sending', 'completed', 'paused', 'cancelled', 'pending_approval'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];
export const CAMPAIGN_STATUS_LABELS: Record<CampaignStatus, string> = {
  draft: 'Borrador',
  scheduled: 'Programada',
  sending: 'Enviando',
  completed: 'Completada',
  paused: 'Pausada',
  cancelled: 'Cancelada',
  pending_approval: 'Pendiente de aprobación',
};

/**
 * Spec §4: the statuses each action may start from; the server's transitions
 * (services/campaigns/campaign-transitions.ts) enforce exactly these, the web shows the buttons.
 */
export const CAN_START: readonly CampaignStatus[] = ['draft', 'scheduled', 'paused'];
export const CAN_PAUSE: readonly CampaignStatus[] = ['sending'];
export const CAN_DELETE: readonly CampaignStatus[] = ['draft', 'paused', 'completed', 'cancelled', 'pending_approval'];
/** Approve or reject: only a campaign waiting for it. */
/** A cancelled campaign sends nothing more; what was sent stays, the rest stays unsent. */
export const CAN_CANCEL: readonly CampaignStatus[] = ['draft', 'scheduled', 'sending', 'paused', 'pending_approval'];
export const CAN_DECIDE: readonly CampaignStatus[] = ['pending_approval'];
/**
 * Not while sending: the sender reads the template and mappings as it goes. Editing a campaign
 * pending approval voids the request (what was asked to be approved is no longer what it is).
 */
export const CAN_EDIT: readonly CampaignStatus[] = ['draft', 'scheduled', 'paused', 'pending_approval'];
/** Retrying failed or unknown recipients; a completed campaign sends again, a paused one waits. */
export const CAN_RETRY: readonly CampaignStatus[] = ['sending', 'paused', 'completed'];

/**
 * Per-recipient delivery states. `unknown` = sent may or may not have happened (crash mid-request).
 * `waiting` = an automatic campaign's recipient before its due time (its lead not looked up yet).
 */
export const RECIPIENT_STATUSES = ['waiting', 'pending', 'sending', 'sent', 'delivered', 'read', 'failed', 'skipped', 'unknown', 'deferred', 'expired'] as const;
export type RecipientStatus = (typeof RECIPIENT_STATUSES)[number];
export const DEFERRED_LABEL = 'Diferido: límite de marketing de Meta';
export const LIMIT_WAIT_LABEL = 'En espera del límite diario de Meta';

/** Ids are PostgreSQL integers: a larger number would be a database error, not a 400. */
const MAX_ID = 2_147_483_647;

const text = (max: number) => z.string().trim().max(max);

/**
 * Meta's per-user marketing limit (131049) defers a recipient: how many more attempts, each at
 * least 24 h after the last, and within how many hours of the first refusal.
 */
const deferredMaxAttemptsSchema = z.coerce
  .number({ error: 'Los reintentos por límite de marketing deben ser un número entre 0 y 5' })
  .int('Los reintentos por límite de marketing deben ser un número entero')
  .min(0, 'Los reintentos por límite de marketing deben ser un número entre 0 y 5')
  .max(5, 'Los reintentos por límite de marketing deben ser un número entre 0 y 5');
const deferredWindowHoursSchema = z.coerce
  .number({ error: 'La ventana de reintentos debe ser de 24 a 168 horas' })
  .int('La ventana de reintentos debe ser un número entero de horas')
  .min(24, 'La ventana de reintentos debe ser de 24 a 168 horas')
  .max(168, 'La ventana de reintentos debe ser de 24 a 168 horas');

/** The numbers of a campaign that sends from several, at most MAX_CAMPAIGN_NUMBERS. */
export const MAX_CAMPAIGN_NUMBERS = 20;
export const campaignNumbersSchema = z
  .array(z.coerce.number({ error: 'Número de WhatsApp inválido' }).int().positive('Número de WhatsApp inválido').max(MAX_ID, 'Número de WhatsApp inválido'), {
    error: 'whatsapp_account_ids debe ser una lista',
  })
  .min(1, 'Elige al menos un número de WhatsApp')
  .max(MAX_CAMPAIGN_NUMBERS, `Hasta ${MAX_CAMPAIGN_NUMBERS} números por campaña`)
  .refine((ids) => new Set(ids).size === ids.length, 'Un número aparece dos veces');

/** Spec §3 creation payload. scheduled_at omitted (or null/empty) = draft. */
export const createCampaignSchema = z.strictObject({
  /** 'campaign' (default): an ordinary campaign; automatic ones have their own schema (automations.ts). */
  kind: z.literal('campaign').optional(),
  name: text(200).min(1, 'El nombre es requerido'),
  description: text(2000).optional().default(''),
  kommo_account_id: z.coerce.number({ error: 'La cuenta Kommo es requerida' }).int().positive('La cuenta Kommo es requerida').max(MAX_ID, 'La cuenta Kommo es requerida'),
  whatsapp_account_id: z.coerce.number({ error: 'La cuenta de WhatsApp es requerida' }).int().positive('La cuenta de WhatsApp es requerida').max(MAX_ID, 'La cuenta de WhatsApp es requerida'),
  /**
   * Several numbers of one business portfolio: every number the campaign sends from,
   * `whatsapp_account_id` (the template's number) among them. Left out or one: that one number.
   */
  whatsapp_account_ids: campaignNumbersSchema.optional(),
  template_id: z.coerce.number({ error: 'La plantilla es requerida' }).int().positive('La plantilla es requerida').max(MAX_ID, 'La plantilla es requerida'),
  message_type: z.literal('template').optional().default('template'),
  scheduled_at: z
    .union([z.iso.datetime({ offset: true, error: 'Fecha de programación inválida' }), z.literal(''), z.null()])
    .optional(),
  filters: contactFilterSchema.optional().default({ searchQuery: '', tags: [], tagOperator: 'OR', excludedTags: [], customFieldFilters: {} }),
  deferred_max_attempts: deferredMaxAttemptsSchema.optional().default(2),
  deferred_window_hours: deferredWindowHoursSchema.optional().default(72),
  /** "Horario de envío": null = off; left out = the WhatsApp account's default. */
  sending_hours: sendingHoursSchema.nullable().optional(),
  /**
   * "Prueba A/B" (split-test.ts): 2–4 variants, the first being `template_id`, given with
   * `ab_test` (both or neither; checked by the server's split-test.ts and the form).
   */
  variants: splitVariantsSchema.optional(),
  ab_test: abTestSchema.optional(),
});
export type CreateCampaignInput = z.input<typeof createCampaignSchema>;

/**
 * PUT: editable while draft/scheduled/paused; audience fields only before the first start.
 * Built without the creation defaults: a field left out must stay as it is, not become ''.
 */
export const updateCampaignSchema = z.strictObject({
  name: createCampaignSchema.shape.name.optional(),
  description: text(2000).optional(),
  kommo_account_id: createCampaignSchema.shape.kommo_account_id.optional(),
  whatsapp_account_id: createCampaignSchema.shape.whatsapp_account_id.optional(),
  whatsapp_account_ids: campaignNumbersSchema.optional(),
  template_id: createCampaignSchema.shape.template_id.optional(),
  scheduled_at: createCampaignSchema.shape.scheduled_at,
  filters: contactFilterSchema.optional(),
  deferred_max_attempts: deferredMaxAttemptsSchema.optional(),
  deferred_window_hours: deferredWindowHoursSchema.optional(),
  sending_hours: sendingHoursSchema.nullable().optional(),
});
export type UpdateCampaignInput = z.input<typeof updateCampaignSchema>;

/**
 * What people answered (detail view only): recipients who replied at least once, the
 * rate over the messages Meta accepted, and quick-reply taps per button (its text as shown).
 */
export const campaignRepliesSchema = z.object({
  replied: z.number(),
  /** Messages Meta accepted (the rate's denominator). */
  accepted: z.number(),
  /** replied / accepted, 0–1 (0 when nothing was accepted). */
  rate: z.number(),
  taps: z.array(z.object({ button: z.string(), taps: z.number(), recipients: z.number() })),
});
export type CampaignReplies = z.infer<typeof campaignRepliesSchema>;

/**
 * Meta's `pricing.type` of a status webhook: `regular` is charged at the rate card's price,
 * `free_customer_service` (inside the customer-service window) and `free_entry_point` (72 h after
 * an ad or page entry point) cost nothing.
 */
export const PRICING_TYPE_LABELS: Record<string, string> = {
  regular: 'Con cargo',
  free_customer_service: 'Gratis (ventana de atención)',
  free_entry_point: 'Gratis (punto de entrada)',
};

/** One line of the real cost: delivered messages of one pricing category, type and recipient country. */
export const costLineSchema = z.object({
  category: z.string().nullable(),
  /** ISO 3166 alpha-2 of the recipients (the rate card's country); null when the number says none. */
  country: z.string().nullable(),
  type: z.string().nullable(),
  model: z.string().nullable(),
  count: z.number(),
  /** USD; null when these messages could not be priced (see `status`). */
  total: z.number().nullable(),
  /** priced: at the rate card; free: a free type; no_rate: "sin tarifa" in the card; unpriceable: pricing missing or of the old per-conversation model. */
  status: z.enum(['priced', 'free', 'no_rate', 'unpriceable']),
});
export type CostLine = z.infer<typeof costLineSchema>;

/** The real cost of a campaign's delivered messages, next to the pre-flight's estimate. */
export const campaignCostSchema = z.object({
  currency: z.literal('USD'),
  /** Sum of the priced lines (free ones are 0). */
  total: z.number(),
  priced: z.number(),
  free: z.number(),
  /** "sin tarifa": no rate in the card for the category, country and send date. */
  no_rate: z.number(),
  /** Delivered without Meta's pricing (not reported yet, no type, or the old CBP model). */
  unpriceable: z.number(),
  lines: z.array(costLineSchema),
  /** The pre-flight's formula over the recipients attempted: template category × country at the start date. */
  estimate: z.object({ total: z.number(), priced: z.number(), unpriced: z.number() }).nullable(),
  /**
   * When these figures were last known current (ISO 8601): a campaign's cost is read from the
   * rollups a background job folds every few seconds. Null when counted from the recipients just now.
   */
  as_of: z.string().nullable().optional(),
});
export type CampaignCost = z.infer<typeof campaignCostSchema>;

/** Two-person approval: a start or a schedule that another member approves. */
export const APPROVAL_KINDS = ['start', 'schedule'] as const;
export type ApprovalKind = (typeof APPROVAL_KINDS)[number];
/** A request's outcome; null = still pending. */
export const APPROVAL_DECISIONS = ['approved', 'rejected', 'expired', 'voided'] as const;
export type ApprovalDecision = (typeof APPROVAL_DECISIONS)[number];
export const APPROVAL_STATUS_LABELS: Record<ApprovalDecision | 'pending', string> = {
  pending: 'Pendiente',
  approved: 'Aprobada',
  rejected: 'Rechazada',
  expired: 'Vencida',
  voided: 'Anulada',
};
/** A request not decided within this many hours expires and the campaign returns to draft. */
export const APPROVAL_TTL_HOURS = 72;
/** The frozen audience may exceed the approved `attempted` by this share before it needs a new approval. */
export const APPROVAL_AUDIENCE_TOLERANCE = 0.05;

export const approveCampaignSchema = z.strictObject({
  note: z.string({ error: 'La nota debe ser texto' }).trim().max(1000, 'La nota admite hasta 1000 caracteres').optional(),
});
export type ApproveCampaignInput = z.input<typeof approveCampaignSchema>;

export const rejectCampaignSchema = z.strictObject({
  reason: z
    .string({ error: 'El motivo del rechazo es requerido' })
    .trim()
    .min(1, 'El motivo del rechazo es requerido')
    .max(1000, 'El motivo admite hasta 1000 caracteres'),
});
export type RejectCampaignInput = z.input<typeof rejectCampaignSchema>;

/** The campaign's latest approval request (detail view; null when it never had one). */
export const campaignApprovalSchema = z.object({
  status: z.enum(['pending', ...APPROVAL_DECISIONS]),
  kind: z.enum(APPROVAL_KINDS),
  /** Who asked; with the creator, they may not approve it themselves. */
  requested_by: z.number().nullable(),
  requested_by_name: z.string().nullable(),
  requested_at: z.string(),
  expires_at: z.string(),
  /** The pre-flight's recipients attempted and estimated cost (USD) at request time. */
  attempted: z.number(),
  cost_usd: z.number().nullable(),
  /** The campaign's creator (the organisation's founder when nobody is recorded). */
  created_by: z.number(),
  decided_by_name: z.string().nullable(),
  decided_at: z.string().nullable(),
  /** The approval's note or the rejection's reason. */
  note: z.string().nullable(),
});
export type CampaignApproval = z.infer<typeof campaignApprovalSchema>;

/**
 * One number of a several-number campaign on its screen: who it sends to and how far it got.
 * `waiting`: its people still to send while the number takes no sends (red quality, switched
 * off, template copy not approved); they keep their number and wait (`blocked_reason` says why).
 */
export const campaignNumberProgressSchema = z.object({
  whatsapp_account_id: z.number(),
  name: z.string(),
  phone: z.string().nullable(),
  rate_per_second: z.number(),
  assigned: z.number(),
  pending: z.number(),
  sent: z.number(),
  failed: z.number(),
  waiting: z.number(),
  blocked_reason: z.string().nullable(),
});
export type CampaignNumberProgress = z.infer<typeof campaignNumberProgressSchema>;

export const campaignSchema = z.object({
  id: z.number(),
  name: z.string(),
  description: z.string(),
  status: z.enum(CAMPAIGN_STATUSES),
  message_type: z.enum(['text', 'template']),
  message_content: z.string().nullable(),
  template_id: z.number().nullable(),
  template_name: z.string().nullable(),
  template_language: z.string().nullable(),
  kommo_account_id: z.number().nullable(),
  whatsapp_account_id: z.number().nullable(),
  /** Every number the campaign sends from; one-number campaigns: just whatsapp_account_id. */
  whatsapp_account_ids: z.array(z.number()).optional(),
  /** Detail view of a several-number campaign: each number's progress (absent otherwise). */
  numbers: z.array(campaignNumberProgressSchema).optional(),
  filters: contactFilterSchema,
  total_recipients: z.number(),
  messages_sent: z.number(),
  delivered_count: z.number(),
  read_count: z.number(),
  failed_count: z.number(),
  skipped_count: z.number(),
  unknown_count: z.number(),
  pending_count: z.number(),
  /** Recipients deferred by Meta's per-user marketing limit, waiting for their retry. */
  deferred_count: z.number(),
  deferred_max_attempts: z.number(),
  deferred_window_hours: z.number(),
  /** Set while the campaign waits for the portfolio's daily messaging limit: when it resumes. */
  limit_wait_until: z.string().nullable(),
  /** "Horario de envío" (null: off) and, while every due recipient is outside it, when it reopens. */
  sending_hours: sendingHoursViewSchema.nullable().optional(),
  hours_wait_until: z.string().nullable().optional(),
  pause_reason: z.string().nullable(),
  /** Who paused it: the operator, Meta's template pause (resumes by itself) or the engine. */
  pause_origin: z.enum(['operator', 'template', 'engine']).nullable(),
  /** Accepted by Meta but held for quality assessment, not delivered yet ("Retenido por Meta"). */
  held_count: z.number(),
  /** Marketing Messages API (0047): recipients Meta reports expired ("Vencido"), who clicked, by which route. */
  marketing_messages: campaignMarketingSchema.optional(),
  /** What Meta reported about the campaign's template (detail view only; null in lists). */
  template_risk: z
    .object({
      status: z.string(),
      status_detail: z.string().nullable(),
      category: z.string(),
      category_change: templateCategoryChangeSchema.nullable(),
    })
    .nullable(),
  /** Detail view only: replies and taps, and the real cost (absent in lists). */
  replies: campaignRepliesSchema.optional(),
  actual_cost: campaignCostSchema.nullable().optional(),
  scheduled_at: z.string().nullable(),
  started_at: z.string().nullable(),
  completed_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  /**
   * The audience: 'filter' (the Kommo filter), a follow-up's frozen 'contact_list', or
   * 'explicit' (phones or BSUIDs given with their own parameters; no Kommo account).
   */
  audience_kind: z.enum(['filter', 'contact_list', 'explicit', 'automatic']).optional(),
  /** An automatic campaign's trigger and figures (detail view only; absent for every other campaign). */
  automation: automationViewSchema.nullable().optional(),
  /** A follow-up ("Nueva campaña para…"): the campaign and group its frozen contact list came from. */
  follow_up_of: z
    .object({
      campaign_id: z.number().nullable(),
      campaign_name: z.string(),
      group: z.string(),
      group_label: z.string(),
      hours: z.number().nullable(),
      button: z.string().nullable(),
    })
    .nullable()
    .optional(),
  /** Detail view only: the latest approval request (two-person approval). */
  approval: campaignApprovalSchema.nullable().optional(),
  /** Detail view only: a split test's arms and result ("Prueba A/B"); absent for every other campaign. */
  split_test: splitTestViewSchema.nullable().optional(),
});
export type Campaign = z.infer<typeof campaignSchema>;

/**
 * Groups of a campaign's recipients by what they did after the send: one definition
 * shared by the recipients table, the results export and "Nueva campaña para…".
 * - replied / not_replied: answered at least once / was sent the message and never answered;
 * - read_not_replied: read it and did not answer;
 * - unread: sent (or delivered) at least `hours` hours ago and not read;
 * - failed_retryable: failed for a reason a new attempt can overcome (not an invalid number,
 *   not a person who stopped marketing messages);
 * - tapped: tapped the quick-reply button whose text is `button`.
 */
export const RECIPIENT_GROUPS = ['replied', 'not_replied', 'read_not_replied', 'unread', 'failed_retryable', 'tapped'] as const;
export type RecipientGroup = (typeof RECIPIENT_GROUPS)[number];
export const RECIPIENT_GROUP_LABELS: Record<RecipientGroup, string> = {
  replied: 'Respondieron',
  not_replied: 'No respondieron',
  read_not_replied: 'Leyeron y no respondieron',
  unread: 'No leyeron',
  failed_retryable: 'Fallaron (reintentables)',
  tapped: 'Tocaron un botón',
};

/** A group with its parameters (query string of the table and the export; body of a follow-up). */
export const recipientGroupQuerySchema = z.object({
  group: z.enum(RECIPIENT_GROUPS).optional(),
  /** For `unread`: hours since the send (1–720). */
  hours: z.coerce.number().int().min(1).max(720).optional(),
  /** For `tapped`: the button's text as shown to the person. */
  button: z.string().trim().min(1).max(60).optional(),
});
export type RecipientGroupQuery = z.infer<typeof recipientGroupQuerySchema>;

export const campaignMessagesQuerySchema = recipientGroupQuerySchema.extend({
  status: z.enum(RECIPIENT_STATUSES).optional(),
  page: z.coerce.number().int().min(1).default(1),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

export const campaignMessageSchema = z.object({
  id: z.number(),
  contact_id: z.number().nullable(),
  contact_name: z.string().nullable(),
  phone: z.string().nullable(),
  status: z.enum(RECIPIENT_STATUSES),
  error_code: z.number().nullable(),
  error_message: z.string().nullable(),
  wamid: z.string().nullable(),
  attempts: z.number(),
  /** The number it is sent from: the campaign's own number unless it uses several. */
  whatsapp_account_id: z.number().nullable().optional(),
  sent_at: z.string().nullable(),
  delivered_at: z.string().nullable(),
  read_at: z.string().nullable(),
  failed_at: z.string().nullable(),
  /** Accepted but held by Meta for quality assessment, not delivered yet: "Retenido por Meta". */
  held: z.boolean(),
  /** Meta's pricing category of the message (status webhooks), when reported. */
  pricing_category: z.string().nullable().optional(),
  /** The route that carried it (`messages` or `marketing_messages`); null while not sent. */
  route: z.enum(SEND_ROUTES).nullable().optional(),
  /** Link clicks Meta reported (Marketing Messages API), and the first one's time. */
  click_count: z.number().optional(),
  clicked_at: z.string().nullable().optional(),
  /** Replies: the first reply's time, how many, the latest (text or a media label), the first button tapped. */
  replied_at: z.string().nullable().optional(),
  reply_count: z.number().optional(),
  last_reply: z.string().nullable().optional(),
  button_tapped: z.string().nullable().optional(),
  /** An automatic campaign's recipient: its Kommo lead, and while waiting, when it is due (ISO). */
  lead_id: z.number().nullable().optional(),
  due_at: z.string().nullable().optional(),
  /** A split test's recipient: its variant ('A'…'D'); null outside a split test or not assigned yet. */
  variant: z.string().nullable().optional(),
});
export type CampaignMessage = z.infer<typeof campaignMessageSchema>;

/** Spanish labels of Meta's pricing categories (status webhook `pricing.category`). */
export const PRICING_CATEGORY_LABELS: Record<string, string> = {
  marketing: 'Marketing',
  marketing_lite: 'Marketing (API de marketing)',
  utility: 'Utilidad',
  authentication: 'Autenticación',
  authentication_international: 'Autenticación internacional',
  service: 'Servicio',
  referral_conversion: 'Conversión por anuncio',
};

export const campaignMessagesPageSchema = z.object({
  messages: z.array(campaignMessageSchema),
  total: z.number(),
  page: z.number(),
  limit: z.number(),
});
export type CampaignMessagesPage = z.infer<typeof campaignMessagesPageSchema>;

/**
 * "Reintentar desconocidos": the outcome of those sends was lost, so some of those people
 * may already have the message. The operator must say so explicitly.
 */
export const retryUnknownSchema = z.strictObject({
  confirm: z.literal(true, { message: 'Confirma que entiendes que algunos destinatarios podrían recibir el mensaje dos veces' }),
});
export type RetryUnknownInput = z.infer<typeof retryUnknownSchema>;

/** Spanish names of a recipient's delivery states (recipients table, results export). */
export const RECIPIENT_STATUS_LABELS: Record<RecipientStatus, string> = {
  waiting: 'Programado',
  pending: 'Pendiente',
  sending: 'Enviando',
  sent: 'Enviado',
  delivered: 'Entregado',
  read: 'Leído',
  failed: 'Fallido',
  skipped: 'Omitido',
  unknown: 'Desconocido',
  deferred: DEFERRED_LABEL,
  expired: 'Vencido',
};

/**
 * Results export: `GET /api/campaigns/{id}/results.csv`, the recipients the table
 * shows for the same filter (status and/or group).
 */
export const campaignResultsQuerySchema = recipientGroupQuerySchema.extend({
  status: z.enum(RECIPIENT_STATUSES, { error: 'Estado de destinatario inválido' }).optional(),
  format: csvFormatSchema.optional().default('csv'),
});
export type CampaignResultsQuery = z.infer<typeof campaignResultsQuerySchema>;

/** The follow-up groups in the order "Nueva campaña para…" offers them. */
export const FOLLOW_UP_GROUPS = ['unread', 'read_not_replied', 'not_replied', 'failed_retryable', 'tapped', 'replied'] as const;
export const FOLLOW_UP_DEFAULT_HOURS = 24;

const followUpHours = z.coerce
  .number({ error: 'Las horas deben ser un número entero entre 1 y 720' })
  .int('Las horas deben ser un número entero entre 1 y 720')
  .min(1, 'Las horas deben ser un número entero entre 1 y 720')
  .max(720, 'Las horas deben ser un número entero entre 1 y 720');
const followUpButton = z
  .string({ error: 'Indica el texto del botón' })
  .trim()
  .min(1, 'Indica el texto del botón')
  .max(60, 'El texto del botón no puede superar 60 caracteres')
  .refine(isWellFormedText, 'El texto del botón tiene caracteres inválidos');

const followUpGroupShape = {
  group: z.enum(RECIPIENT_GROUPS, { error: 'Elige a quiénes va dirigida la nueva campaña' }),
  /** For `unread`: hours since the send (default 24). */
  hours: followUpHours.optional(),
  /** For `tapped`: the button's text as shown to the person. */
  button: followUpButton.optional(),
};

const tappedNeedsButton = (v: { group: RecipientGroup; button?: string }) => v.group !== 'tapped' || Boolean(v.button);
const NEEDS_BUTTON = { message: 'Indica el texto del botón', path: ['button'] };

/** `GET /api/campaigns/{id}/follow-up/count`: how many contacts a follow-up for this group would take. */
export const followUpCountQuerySchema = z.object(followUpGroupShape).refine(tappedNeedsButton, NEEDS_BUTTON);
export type FollowUpCountQuery = z.input<typeof followUpCountQuerySchema>;

export const followUpCountSchema = z.object({
  group: z.enum(RECIPIENT_GROUPS),
  label: z.string(),
  count: z.number(),
  /**
   * An empty "No leyeron" group: when its first recipient qualifies (the earliest send still
   * unread plus the hours), ISO; null when nothing will fill it by itself, or it is not empty.
   */
  available_from: z.string().nullable(),
  /** Contacts of the group that got a message (accepted by Meta) from any campaign in the last 24 h. */
  messaged_last_24h: z.number(),
  /** The tenant's frequency cap (null: off, so nothing stops those messaged lately from getting another). */
  frequency_cap: z.object({ max_messages: z.number(), days: z.number() }).nullable(),
});
export type FollowUpCount = z.infer<typeof followUpCountSchema>;

/**
 * `POST /api/campaigns/{id}/follow-up`: a draft campaign over exactly the contacts of the group
 * (a frozen contact list). Name: default "{campaña} · {grupo}"; template: default the source's.
 */
export const createFollowUpSchema = z
  .strictObject({
    ...followUpGroupShape,
    name: z
      .string({ error: 'El nombre debe ser un texto' })
      .trim()
      .max(200, 'El nombre no puede superar 200 caracteres')
      .refine(isWellFormedText, 'El nombre tiene caracteres inválidos')
      .optional(),
    template_id: z.coerce
      .number({ error: 'Plantilla inválida' })
      .int('Plantilla inválida')
      .positive('Plantilla inválida')
      .max(MAX_ID, 'Plantilla inválida')
      .optional(),
  })
  .refine(tappedNeedsButton, NEEDS_BUTTON);
export type CreateFollowUpInput = z.input<typeof createFollowUpSchema>;
