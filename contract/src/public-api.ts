import { z } from 'zod';
import { abTestSchema, SPLIT_METRICS, SPLIT_NO_WINNER, splitVariantsSchema, VARIANT_LABELS } from './split-test';
import { CAMPAIGN_STATUSES, RECIPIENT_STATUSES } from './campaigns';
import { SEND_ROUTES } from './marketing-messages';
import { contactFilterSchema } from './contact-filter';

/**
 * The public API (`/api/v1`): what other systems send and receive. Its shapes are its own, kept
 * stable while the console's grow: a field may be added, none is renamed or removed. Every
 * bound is explicit, so the published document states what the server enforces.
 */

// ---------------------------------------------------------------------------------------------
// Problem details (RFC 9457): one stable `type` per kind of error.

export const PROBLEM_TYPES = {
  validation: { status: 400, title: 'Datos inválidos' },
  'invalid-request': { status: 400, title: 'Petición inválida' },
  'idempotency-key-missing': { status: 400, title: 'Falta la cabecera Idempotency-Key' },
  unauthenticated: { status: 401, title: 'No autenticado' },
  forbidden: { status: 403, title: 'Sin permiso' },
  'not-found': { status: 404, title: 'No encontrado' },
  conflict: { status: 409, title: 'Conflicto con el estado actual' },
  'idempotency-in-progress': { status: 409, title: 'Petición con esta Idempotency-Key en curso' },
  'idempotency-key-reused': { status: 422, title: 'Idempotency-Key usada con otro cuerpo' },
  unprocessable: { status: 422, title: 'No se puede procesar' },
  'rate-limited': { status: 429, title: 'Demasiadas peticiones' },
  internal: { status: 500, title: 'Error interno' },
  upstream: { status: 502, title: 'Error de un servicio externo' },
} as const satisfies Record<string, { status: number; title: string }>;
export type ProblemKind = keyof typeof PROBLEM_TYPES;
export const PROBLEM_KINDS = Object.keys(PROBLEM_TYPES) as ProblemKind[];
export const problemType = (kind: ProblemKind) => `urn:masivo:problema:${kind}`;

export const problemSchema = z
  .object({
    type: z.string().max(100),
    title: z.string().max(200),
    status: z.int().min(100).max(599),
    detail: z.string().max(2000),
    instance: z.string().max(2000).optional(),
    errors: z
      .array(z.object({ pointer: z.string().max(300), detail: z.string().max(500) }))
      .max(20)
      .optional(),
  })
  .meta({ id: 'Problem' });
export type Problem = z.infer<typeof problemSchema>;

// ---------------------------------------------------------------------------------------------
// Shared pieces.

const MAX_INT = 2_147_483_647;
/** A row id in a path: digits (the published type is a string; ids are not guessable-safe numbers). */
const digitsId = (message: string) =>
  z
    .string({ error: message })
    .max(10, message)
    .regex(/^[1-9][0-9]{0,9}$/, message)
    .transform(Number)
    .refine((n) => n <= MAX_INT, message);
export const v1IdParamsSchema = z.object({ id: digitsId('Id inválido') });
const dateTime = (message: string) => z.string({ error: message }).max(40, message).pipe(z.iso.datetime({ offset: true, error: message }));
const rowId = z.int().min(1).max(MAX_INT);
/** The last id of the page before (row ids may pass 2^31; 18 digits always fit a bigint). */
const cursorSchema = z.string().max(18, 'Cursor inválido').regex(/^[0-9]{1,18}$/, 'Cursor inválido').optional();
const count = z.int().min(0).max(MAX_INT);
const when = z.string().max(40);
const text = (max: number) => z.string().max(max);

export const RECIPIENTS_PER_CALL = 1000;
export const PARAM_KEY_PATTERN = /^(variable_[A-Za-z0-9_]{1,60}|header_variable_[0-9]{1,2}|header_media|button_[0-9]{1,2})$/;

/** Values for one recipient, by the console's mapping keys: `variable_1`, `variable_nombre`, `header_variable_1`, `header_media`, `button_0`. */
export const recipientParamsSchema = z
  .record(
    z.string().max(80).regex(PARAM_KEY_PATTERN, 'Clave de parámetro inválida (variable_N, variable_nombre, header_variable_N, header_media o button_N)'),
    z.string({ error: 'Cada parámetro debe ser un texto' }).max(2000, 'Un parámetro admite hasta 2000 caracteres'),
  )
  .refine((p) => Object.keys(p).length <= 60, 'Demasiados parámetros');

export const v1RecipientInputSchema = z
  .strictObject({
    phone: z.string().trim().max(32, 'Teléfono demasiado largo').optional(),
    bsuid: z.string().trim().max(128, 'BSUID demasiado largo').optional(),
    params: recipientParamsSchema.optional(),
  })
  .refine((r) => !!r.phone !== !!r.bsuid, 'Cada destinatario lleva phone (E.164) o bsuid, uno de los dos');
export type V1RecipientInput = z.infer<typeof v1RecipientInputSchema>;

export const v1RecipientsBatchSchema = z
  .array(v1RecipientInputSchema, { error: 'recipients debe ser una lista' })
  .min(1, 'Agrega al menos un destinatario')
  .max(RECIPIENTS_PER_CALL, `Hasta ${RECIPIENTS_PER_CALL} destinatarios por llamada`);

// ---------------------------------------------------------------------------------------------
// Campaigns.

export const v1CreateCampaignSchema = z
  .strictObject({
    name: z.string({ error: 'El nombre es requerido' }).trim().min(1, 'El nombre es requerido').max(255, 'El nombre admite hasta 255 caracteres'),
    description: z.string().trim().max(2000, 'La descripción admite hasta 2000 caracteres').optional(),
    whatsapp_account_id: rowId,
    /** Several numbers of one portfolio, whatsapp_account_id (the template's) among them. */
    whatsapp_account_ids: z.array(rowId).min(1, 'Elige al menos un número de WhatsApp').max(20, 'Hasta 20 números por campaña').optional(),
    template_id: rowId,
    /** A Kommo account and a filter, as the console's campaign form… */
    kommo_account_id: rowId.optional(),
    filters: contactFilterSchema.optional(),
    /** …or explicit recipients (more may be added while it is a draft). */
    recipients: z
      .array(v1RecipientInputSchema)
      .max(RECIPIENTS_PER_CALL, `Hasta ${RECIPIENTS_PER_CALL} destinatarios por llamada`)
      .optional(),
    scheduled_at: dateTime('Fecha de programación inválida').optional(),
    /**
     * A split test ("Prueba A/B"), as in the console: 2–4 variants, the first being template_id,
     * with ab_test (both or neither). Only for a Kommo audience (kommo_account_id).
     */
    variants: splitVariantsSchema.optional(),
    ab_test: abTestSchema.optional(),
  })
  .refine((b) => !(b.kommo_account_id && b.recipients), 'Usa kommo_account_id con filters, o recipients, no ambos')
  .refine((b) => !((b.variants || b.ab_test) && !b.kommo_account_id), 'Una prueba A/B necesita una audiencia de Kommo (kommo_account_id)')
  .refine((b) => !(b.filters && !b.kommo_account_id), 'filters requiere kommo_account_id');
export type V1CreateCampaign = z.infer<typeof v1CreateCampaignSchema>;

export const v1AddRecipientsSchema = z.strictObject({ recipients: v1RecipientsBatchSchema });
export const v1ScheduleSchema = z.strictObject({
  scheduled_at: dateTime('Fecha de programación inválida'),
});

export const v1CountsSchema = z.object({
  total: count,
  pending: count,
  sent: count,
  delivered: count,
  read: count,
  failed: count,
  skipped: count,
  unknown: count,
  deferred: count,
});

export const v1PreflightSchema = z.object({
  matched: count,
  attempted: count,
  excluded: z.array(z.object({ reason: text(60), label: text(200), count })).max(20),
  estimated_cost_usd: z.number().min(0).max(1e12).nullable(),
});

export const v1CampaignSchema = z
  .object({
    id: rowId,
    name: text(255),
    description: text(2000),
    status: z.enum(CAMPAIGN_STATUSES),
    audience: z.enum(['filter', 'contact_list', 'explicit']),
    whatsapp_account_id: rowId.nullable(),
    /** Every number it sends from (one-number campaigns: just whatsapp_account_id). */
    whatsapp_account_ids: z.array(rowId).max(20),
    template_id: rowId.nullable(),
    template_name: text(512).nullable(),
    template_language: text(20).nullable(),
    kommo_account_id: rowId.nullable(),
    scheduled_at: when.nullable(),
    started_at: when.nullable(),
    completed_at: when.nullable(),
    created_at: when,
    pause_reason: text(2000).nullable(),
    counts: v1CountsSchema,
    /** A split test's variants in order (A first: template_id), null outside one. */
    variants: z.array(z.object({ variant: z.enum(VARIANT_LABELS), template_id: rowId.nullable(), template_name: text(512) })).max(4).nullable(),
    /** A split test's settings, null outside one. */
    ab_test: z
      .object({
        share: z.number().min(0).max(1),
        metric: z.enum(SPLIT_METRICS),
        wait_seconds: z.int().min(0).max(MAX_INT),
        no_winner: z.enum(SPLIT_NO_WINNER),
      })
      .nullable(),
    /** The decision once taken: the variant the rest got (null: stopped) and its wording. */
    split_result: z
      .object({
        outcome: z.enum(['winner', 'best', 'stopped']),
        winner: z.enum(VARIANT_LABELS).nullable(),
        summary: text(200),
        p_value: z.number().min(0).max(1).nullable(),
        insufficient_sample: z.boolean(),
      })
      .nullable(),
    /** Only in the answer of GET /campaigns/{id}: what the pre-flight says now. */
    preflight: v1PreflightSchema.nullable().optional(),
  })
  .meta({ id: 'Campaign' });
export type V1Campaign = z.infer<typeof v1CampaignSchema>;

export const v1CampaignListQuerySchema = z.object({
  cursor: cursorSchema,
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
export const v1CampaignPageSchema = z.object({ data: z.array(v1CampaignSchema).max(200), next_cursor: text(20).nullable() });

export const v1AddRecipientsResultSchema = z.object({ added: count, total: count });

export const v1RecipientsQuerySchema = z.object({
  status: z.enum(RECIPIENT_STATUSES, { error: 'Estado de destinatario inválido' }).optional(),
  cursor: cursorSchema,
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

export const v1RecipientSchema = z.object({
  id: rowId,
  phone: text(32).nullable(),
  bsuid: text(128).nullable(),
  status: z.enum(RECIPIENT_STATUSES),
  error_code: z.int().min(0).max(MAX_INT).nullable(),
  error_message: text(2000).nullable(),
  wamid: text(200).nullable(),
  /** The number it is (or will be) sent from. */
  whatsapp_account_id: rowId.nullable(),
  sent_at: when.nullable(),
  delivered_at: when.nullable(),
  read_at: when.nullable(),
  failed_at: when.nullable(),
  reply: text(4096).nullable(),
  replied_at: when.nullable(),
  cost_usd: z.number().min(0).max(1e9).nullable(),
  /** A split test's arm ('A'…'D'); null outside a split test, or while waiting for the winner. */
  variant: z.enum(VARIANT_LABELS).nullable(),
  /** The route that carried it: Cloud API `messages` or the Marketing Messages API `marketing_messages`; null while not sent. */
  route: z.enum(SEND_ROUTES).nullable(),
  /** Meta's `pricing.category` (`marketing_lite` for the Marketing Messages API), when reported. */
  pricing_category: text(60).nullable(),
  /** Link clicks Meta reported for it (Marketing Messages API). */
  click_count: z.int().min(0).max(MAX_INT),
});
export const v1RecipientPageSchema = z.object({ data: z.array(v1RecipientSchema).max(1000), next_cursor: text(20).nullable() });

// ---------------------------------------------------------------------------------------------
// Contacts and templates.

export const v1ContactsQuerySchema = z.object({
  kommo_account_id: digitsId('kommo_account_id es requerido: el id de una cuenta Kommo'),
  search: z.string().max(200).optional(),
  tag: z.string().max(200).optional(),
  cursor: cursorSchema,
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});
export const v1ContactSchema = z.object({
  id: rowId,
  kommo_id: z.int().min(0).max(Number.MAX_SAFE_INTEGER),
  name: text(500),
  first_name: text(500),
  last_name: text(500),
  phone: text(32).nullable(),
  email: text(500).nullable(),
  tags: z.array(text(200)).max(2000),
  custom_fields: z.record(text(200), text(10_000)),
});
export const v1ContactPageSchema = z.object({ data: z.array(v1ContactSchema).max(1000), next_cursor: text(20).nullable() });

export const v1TemplatesQuerySchema = z.object({
  whatsapp_account_id: digitsId('whatsapp_account_id inválido').optional(),
});
export const v1TemplateSchema = z.object({
  id: rowId,
  whatsapp_account_id: rowId,
  name: text(512),
  language: text(20),
  category: text(40),
  status: text(40),
  parameter_format: text(20),
  /** The parameter keys a recipient's `params` may carry for this template. */
  params: z.array(z.object({ key: text(80), label: text(200), kind: text(40), required: z.boolean() })).max(100),
  campaign_compatible: z.boolean(),
});
export const v1TemplateListSchema = z.object({ data: z.array(v1TemplateSchema).max(5000) });
