import { z } from 'zod';
import { csvFormatSchema, idSchema } from './common';
import { roleSchema } from './organizations';

/**
 * The activity log («Registro de actividad»): who did what in an organisation, from where, and
 * whether it was done or refused. Append-only: no route edits or deletes an entry; only the
 * retention sweep removes entries older than the organisation's retention.
 */

/**
 * Every action the log records, in Spanish, for the page and the CSV. A refusal is recorded
 * under the action that was attempted (or the permission it lacked, e.g. `contacts.export`).
 */
export const ACTIVITY_ACTION_LABEL = {
  'auth.login': 'Inicio de sesión',
  'auth.login_failed': 'Inicio de sesión fallido',
  'campaign.create': 'Creó la campaña',
  'campaign.update': 'Editó la campaña',
  'campaign.schedule': 'Programó la campaña',
  'campaign.start': 'Inició la campaña',
  'campaign.pause': 'Pausó la campaña',
  'campaign.resume': 'Reanudó la campaña',
  'campaign.delete': 'Eliminó la campaña',
  'campaign.retry': 'Reintentó envíos fallidos',
  'campaign.retry_unknown': 'Reintentó envíos sin confirmar',
  'campaign.follow_up': 'Creó una campaña de seguimiento',
  'campaign.scheduled_start': 'Inicio programado de la campaña',
  'campaign.start_failed': 'No se pudo iniciar la campaña programada',
  'campaign.paused_by_engine': 'Campaña pausada automáticamente',
  'campaign.paused_by_meta': 'Campaña pausada por Meta',
  'campaign.resumed_by_meta': 'Campaña reanudada: Meta reactivó la plantilla',
  'campaign.completed': 'Campaña completada',
  'campaign.reopened': 'Campaña reabierta para reenviar',
  'campaign.results_export': 'Exportó los resultados de la campaña',
  'campaigns.start': 'Iniciar campaña',
  'campaigns.send': 'Enviar campaña',
  'campaigns.approve': 'Aprobar campaña',
  'contacts.export': 'Exportó contactos',
  'blacklist.add': 'Agregó un número a la blacklist',
  'blacklist.remove': 'Quitó un número de la blacklist',
  'kommo_account.create': 'Conectó una cuenta Kommo',
  'kommo_account.update': 'Editó una cuenta Kommo',
  'kommo_account.delete': 'Eliminó una cuenta Kommo',
  'kommo_writeback.update': 'Cambió la escritura en Kommo',
  'whatsapp_account.create': 'Conectó un número de WhatsApp',
  'whatsapp_account.update': 'Editó un número de WhatsApp',
  'whatsapp_account.delete': 'Eliminó un número de WhatsApp',
  'pricing.upload': 'Subió la tarifa',
  'pricing.reset': 'Restauró la tarifa de Meta',
  'settings.frequency_cap': 'Cambió el límite de frecuencia',
  'organization.settings': 'Cambió la configuración de la organización',
  'activity.export': 'Exportó el registro de actividad',
  'campaign.approval_requested': 'Pidió aprobación para la campaña',
  'campaign.approve': 'Aprobó la campaña',
  'campaign.reject': 'Rechazó la campaña',
  'campaign.approval_expired': 'La aprobación venció sin respuesta',
  'campaign.approval_voided': 'La aprobación quedó sin efecto por un cambio',
  'invitation.create': 'Invitó a un miembro',
  'invitation.resend': 'Reenvió una invitación',
  'invitation.revoke': 'Revocó una invitación',
  'invitation.accept': 'Aceptó la invitación',
  'member.update': 'Cambió el rol o el alcance de un miembro',
  'member.remove': 'Quitó a un miembro',
  'member.leave': 'Dejó la organización',
  'api_key.create': 'Creó una clave de API',
  'api_key.revoke': 'Revocó una clave de API',
  'campaign.cancel': 'Canceló la campaña',
  'campaign.recipients_add': 'Agregó destinatarios a la campaña',
  'webhook.created': 'Creó un webhook',
  'webhook.updated': 'Editó un webhook',
  'webhook.deleted': 'Eliminó un webhook',
  'webhook.secret_rotated': 'Rotó el secreto de un webhook',
  'webhook.disabled': 'Webhook desactivado por fallos',
} as const satisfies Record<string, string>;
export type ActivityAction = keyof typeof ACTIVITY_ACTION_LABEL;
export const ACTIVITY_ACTIONS = Object.keys(ACTIVITY_ACTION_LABEL) as ActivityAction[];

/** An action's label; an action recorded by a newer version than this one shows as it is. */
export const activityActionLabel = (action: string): string =>
  (ACTIVITY_ACTION_LABEL as Record<string, string>)[action] ?? action;

export const ACTIVITY_TARGET_LABEL: Record<string, string> = {
  campaign: 'Campaña',
  contacts: 'Contactos',
  blacklist: 'Blacklist',
  kommo_account: 'Cuenta Kommo',
  whatsapp_account: 'Número de WhatsApp',
  rate_card: 'Tarifa',
  settings: 'Configuración',
  organization: 'Organización',
  user: 'Usuario',
  activity: 'Registro de actividad',
  invitation: 'Invitación',
  member: 'Miembro',
  api_key: 'Clave de API',
  webhook_endpoint: 'Webhook',
};

export const ACTIVITY_OUTCOME_LABEL = { done: 'Hecho', denied: 'Denegado' } as const;

/** The author of a refused or engine entry has no role; the engine's name is this one. */
export const SYSTEM_ACTOR_NAME = 'sistema';

const dateParam = (message: string) =>
  z
    .string()
    .trim()
    .max(40, message)
    .refine((v) => !Number.isNaN(Date.parse(v)), message);

const MAX_LIMIT = 200;

/** The filters of the page and of the CSV (which ignores the cursor and the limit). */
export const activityQuerySchema = z.strictObject({
  user_id: idSchema.optional(),
  action: z
    .string()
    .trim()
    .max(60, 'Acción inválida')
    .regex(/^[a-z_.]+$/, 'Acción inválida')
    .optional(),
  target_type: z
    .string()
    .trim()
    .max(40, 'Tipo de objeto inválido')
    .regex(/^[a-z_]+$/, 'Tipo de objeto inválido')
    .optional(),
  target_id: z.string().trim().min(1, 'Objeto inválido').max(60, 'Objeto inválido').optional(),
  outcome: z.enum(['done', 'denied'], { error: 'Resultado inválido' }).optional(),
  /** A date (`2025-01-31`, from its start) or an instant. */
  from: dateParam('Fecha «desde» inválida').optional(),
  /** A date (up to its end) or an instant. */
  to: dateParam('Fecha «hasta» inválida').optional(),
  /** The `next_cursor` of the previous page. */
  cursor: z.string().regex(/^\d{1,18}$/, 'Cursor inválido').optional(),
  limit: z.coerce
    .number({ error: 'Límite inválido' })
    .int('Límite inválido')
    .min(1, 'El límite debe ser al menos 1')
    .max(MAX_LIMIT, `El límite no puede superar ${MAX_LIMIT}`)
    .default(50),
});
export type ActivityQuery = z.output<typeof activityQuerySchema>;
export type ActivityQueryInput = z.input<typeof activityQuerySchema>;

export const activityCsvQuerySchema = activityQuerySchema.omit({ cursor: true, limit: true }).extend({
  format: csvFormatSchema.optional().default('csv'),
});
export type ActivityCsvQuery = z.output<typeof activityCsvQuerySchema>;

/** A campaign's timeline: the newest entries first, one page. */
export const campaignActivityQuerySchema = activityQuerySchema.pick({ cursor: true, limit: true });

const changedFields = z.record(z.string(), z.unknown());

export const activityEntrySchema = z.object({
  id: z.string(),
  at: z.string(),
  actor_user_id: z.number().nullable(),
  /** The name at the time, or "sistema". */
  actor_name: z.string(),
  actor_role: roleSchema.nullable(),
  action: z.string(),
  target_type: z.string().nullable(),
  target_id: z.string().nullable(),
  /** The name at the time. */
  target_name: z.string().nullable(),
  changes: z.object({ before: changedFields.optional(), after: changedFields.optional() }).nullable(),
  detail: z.record(z.string(), z.unknown()).nullable(),
  ip: z.string().nullable(),
  user_agent: z.string().nullable(),
  outcome: z.enum(['done', 'denied']),
  reason: z.string().nullable(),
});
export type ActivityEntryView = z.infer<typeof activityEntrySchema>;

export const activityPageSchema = z.object({
  items: z.array(activityEntrySchema),
  /** Pass as `cursor` for the next (older) page; null on the last one. */
  next_cursor: z.string().nullable(),
});
export type ActivityPage = z.infer<typeof activityPageSchema>;
