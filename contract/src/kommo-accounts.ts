import { z } from 'zod';
import { timeZoneSchema } from './sending-hours';
import { ACCESS_TOKEN_CHARSET_MESSAGE, ACCESS_TOKEN_PATTERN } from './common';
import { defaultCountrySchema } from './phone-countries';
import { kommoFreshnessSchema } from './kommo-inbound';

/** A subdomain goes into a URL only when it is a plain Kommo subdomain. */
export const SUBDOMAIN_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;

export const SYNC_STATUSES = ['idle', 'syncing', 'synced', 'error'] as const;
export type SyncStatus = (typeof SYNC_STATUSES)[number];
/** Spec §4: the badge text of each sync status. */
export const SYNC_STATUS_LABELS: Record<SyncStatus, string> = {
  idle: 'Inactivo',
  syncing: 'Sincronizando',
  synced: 'Sincronizado',
  error: 'Error',
};

export const subdomainSchema = z
  .string({ error: 'El subdominio es requerido' })
  .trim()
  .toLowerCase()
  .min(1, 'El subdominio es requerido')
  .regex(SUBDOMAIN_PATTERN, 'Subdominio inválido: usa solo el nombre de tu cuenta Kommo (por ejemplo, miempresa)');

export const accessTokenSchema = z
  .string({ error: 'El token de acceso es requerido' })
  .trim()
  .min(1, 'El token de acceso es requerido')
  .max(4000, 'El token de acceso es demasiado largo')
  .regex(ACCESS_TOKEN_PATTERN, ACCESS_TOKEN_CHARSET_MESSAGE);

export const phoneFieldIdSchema = z.coerce
  .number({ error: 'El campo de teléfono es requerido' })
  .int('El campo de teléfono debe ser un número entero')
  .positive('El campo de teléfono es requerido')
  // The column is a PostgreSQL integer; a larger id is refused here, not by the database.
  .max(2_147_483_647, 'El campo de teléfono es inválido');

export const createKommoAccountSchema = z.strictObject({
  subdomain: subdomainSchema,
  access_token: accessTokenSchema,
  phone_field_id: phoneFieldIdSchema,
});
export type CreateKommoAccountInput = z.input<typeof createKommoAccountSchema>;

/** A blank access_token keeps the stored one. */
export const updateKommoAccountSchema = z.strictObject({
  subdomain: subdomainSchema.optional(),
  access_token: z
    .string()
    .trim()
    .max(4000, 'El token de acceso es demasiado largo')
    .refine((v) => v === '' || ACCESS_TOKEN_PATTERN.test(v), ACCESS_TOKEN_CHARSET_MESSAGE)
    .optional(),
  phone_field_id: phoneFieldIdSchema.optional(),
  /** "Campo de zona horaria": the contact field (its name) holding each person's IANA zone; blank or null: none. */
  time_zone_field: z
    .string({ error: 'El campo de zona horaria es inválido' })
    .trim()
    .max(200, 'El campo de zona horaria es demasiado largo')
    .nullish()
    .transform((v) => (v === undefined ? undefined : v ? v : null)),
  /** The account's own zone: recipients whose zone is not known otherwise. */
  time_zone: timeZoneSchema.optional(),
  /**
   * "País por defecto": national-format phones ("3126547882") are read as numbers of this
   * country (ISO 3166-1 alpha-2); null or blank: the Kommo account's country. A change re-checks
   * the stored phones in the background.
   */
  default_country: defaultCountrySchema.optional(),
});
export type UpdateKommoAccountInput = z.input<typeof updateKommoAccountSchema>;

export const kommoCustomFieldsRequestSchema = z.strictObject({
  subdomain: subdomainSchema,
  access_token: accessTokenSchema,
});

export const kommoFieldSchema = z.object({
  id: z.number(),
  name: z.string(),
  type: z.string(),
  code: z.string().nullable(),
});
export type KommoField = z.infer<typeof kommoFieldSchema>;

export const syncContactsRequestSchema = z.strictObject({
  account_id: z.coerce.number().int().positive().max(2_147_483_647),
  /** Force a full sync (which also removes contacts deleted in Kommo). */
  full: z.boolean().optional(),
});

export const PHONE_RECHECK_STATUSES = ['running', 'done', 'interrupted'] as const;
export type PhoneRecheckStatus = (typeof PHONE_RECHECK_STATUSES)[number];

/**
 * The last re-check of the stored phones with a new default country. `interrupted`: cancelled,
 * or stopped by a failure; the contacts already re-checked keep their new phone.
 */
export const phoneRecheckSchema = z.object({
  status: z.enum(PHONE_RECHECK_STATUSES),
  /** The country the phones were read in; null: none (only international numbers are valid). */
  country: z.string().nullable(),
  /** Contacts looked at, of `total` (the account's contacts when it started). */
  processed: z.number(),
  total: z.number(),
  /** Contacts without a valid phone before that have one now, and the reverse. */
  became_valid: z.number(),
  became_invalid: z.number(),
  /** Contacts whose valid phone became another valid phone. */
  changed: z.number(),
  started_at: z.string(),
  finished_at: z.string().nullable(),
});
export type PhoneRecheck = z.infer<typeof phoneRecheckSchema>;

/** The access token never leaves the server. */
export const kommoAccountSchema = z.object({
  id: z.number(),
  subdomain: z.string(),
  phone_field_id: z.number(),
  /** The country of the Kommo account, as Kommo reports it at each sync. */
  country: z.string().nullable(),
  /** The operator's "País por defecto" (ISO code), or null to follow `country`. */
  default_country: z.string().nullable().optional(),
  phone_recheck: phoneRecheckSchema.nullable().optional(),
  time_zone_field: z.string().nullable().optional(),
  time_zone: z.string().optional(),
  sync_status: z.enum(SYNC_STATUSES),
  sync_total_contacts: z.number(),
  sync_progress_contacts: z.number(),
  last_sync_at: z.string().nullable(),
  sync_error_message: z.string().nullable(),
  /** «Mantener contactos al día»: on or off, and whether Kommo's webhooks or the minute's catch-up keep them. */
  freshness: kommoFreshnessSchema.optional(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type KommoAccount = z.infer<typeof kommoAccountSchema>;

export const syncStatusSchema = kommoAccountSchema.pick({
  id: true,
  sync_status: true,
  sync_total_contacts: true,
  sync_progress_contacts: true,
  last_sync_at: true,
  sync_error_message: true,
  phone_recheck: true,
});
export type SyncStatusInfo = z.infer<typeof syncStatusSchema>;

/** Answer of POST /api/kommo/accounts/:id/cancel-sync. */
export const syncCancelledSchema = z.object({ success: z.literal(true), message: z.string(), account: syncStatusSchema });

export const syncStartedSchema = z.object({ success: z.literal(true), message: z.string(), account: syncStatusSchema });
