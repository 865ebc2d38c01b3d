import { z } from 'zod';
import { createCampaignSchema } from './campaigns';
import { MAPPING_KEY_MESSAGE, MAPPING_KEY_PATTERN } from './variables';

/**
 * Campaigns with explicit recipients (audience_kind 'explicit'): no Kommo filter, but a list of
 * E.164 phones or BSUIDs, each with its own values for the template's placeholders, header
 * media and buttons. `params` uses the console's mapping keys: `variable_1` / `variable_{name}`
 * (body), `header_variable_1` / `header_variable_{name}` (text header), `header_media` (an https
 * link for an image, video or document header; `lat,long;name;address` for a location header),
 * `button_0` (a URL button's suffix or a coupon code, by the button's index). A recipient's
 * value wins over the template's mapping for that slot; a slot without a mapping needs a value
 * in every recipient. The server checks the keys against the template.
 */

/** Recipients per call; larger lists are added in several calls while the campaign is a draft. */
export const EXPLICIT_RECIPIENTS_MAX_BATCH = 1000;

/** E.164: "+", a country code not starting with 0, 7 to 15 digits in all. */
export const E164_PATTERN = /^\+[1-9]\d{6,14}$/;
/** Meta's business-scoped user id: country, optional ENT., alphanumeric id (server/src/lib/bsuid.ts). */
export const BSUID_PATTERN = /^[A-Z]{2}\.(?:ENT\.)?[A-Za-z0-9]{1,64}$/;

/** Meta refuses longer text parameters; a link or a location fits in it too. */
const MAX_PARAM_LENGTH = 1024;
const MAX_PARAMS = 60;

export const explicitRecipientParamsSchema = z
  .record(
    z.string().regex(MAPPING_KEY_PATTERN, MAPPING_KEY_MESSAGE),
    z.string({ error: 'Cada parámetro debe ser texto' }).max(MAX_PARAM_LENGTH, `Cada parámetro admite hasta ${MAX_PARAM_LENGTH} caracteres`),
    { error: 'Los parámetros deben ser un objeto de clave y texto' },
  )
  .refine((p) => Object.keys(p).length <= MAX_PARAMS, { message: `Se admiten hasta ${MAX_PARAMS} parámetros por destinatario` });

export const explicitRecipientSchema = z
  .strictObject(
    {
      phone: z
        .string({ error: 'El teléfono debe ser texto' })
        .trim()
        .regex(E164_PATTERN, 'El teléfono debe estar en formato E.164 (por ejemplo +5491123456789)')
        .optional(),
      bsuid: z
        .string({ error: 'El BSUID debe ser texto' })
        .trim()
        .regex(BSUID_PATTERN, 'El BSUID no es válido (por ejemplo US.13491208655302741918)')
        .optional(),
      params: explicitRecipientParamsSchema.optional(),
    },
    { error: 'Cada destinatario debe ser un objeto con phone o bsuid' },
  )
  .refine((r) => (r.phone === undefined) !== (r.bsuid === undefined), {
    message: 'Indica exactamente uno de phone o bsuid',
  });
export type ExplicitRecipient = z.infer<typeof explicitRecipientSchema>;
export type ExplicitRecipientInput = z.input<typeof explicitRecipientSchema>;

export const explicitRecipientsBatchSchema = z
  .array(explicitRecipientSchema, { error: 'Los destinatarios deben ser una lista' })
  .min(1, 'Indica al menos un destinatario')
  .max(EXPLICIT_RECIPIENTS_MAX_BATCH, `Se admiten hasta ${EXPLICIT_RECIPIENTS_MAX_BATCH} destinatarios por lote`);
export type ExplicitRecipientsBatch = z.input<typeof explicitRecipientsBatchSchema>;

/** What adding a batch answers: how many this call added, how many the campaign holds. */
export const addExplicitRecipientsResultSchema = z.object({ added: z.number(), total: z.number() });
export type AddExplicitRecipientsResult = z.infer<typeof addExplicitRecipientsResultSchema>;

/**
 * Creating a campaign with explicit recipients: the create payload without a Kommo account or
 * filters. It is created as a draft (or scheduled with `scheduled_at`); recipients are added
 * while it is a draft.
 */
export const createExplicitCampaignSchema = createCampaignSchema.omit({ kommo_account_id: true, filters: true });
export type CreateExplicitCampaignInput = z.input<typeof createExplicitCampaignSchema>;
