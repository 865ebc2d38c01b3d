import { z } from 'zod';

/**
 * Automatic campaigns («Campaña automática»): a campaign that stays switched on and sends its
 * template to a lead's main contact each time the lead enters (or is created in) a Kommo stage.
 */

/** Kommo ids of pipelines and stages are positive integers (bigint in the database). */
const kommoId = (message: string) =>
  z.coerce.number({ error: message }).int(message).positive(message).max(Number.MAX_SAFE_INTEGER, message);

/** The longest delay: 30 days. */
export const MAX_DELAY_SECONDS = 30 * 86_400;
/** The longest re-entry window: a year. */
export const MAX_REENTRY_DAYS = 365;
/** An event whose due time passed more than this long ago (paused meanwhile) is skipped «vencido». */
export const STALE_AFTER_SECONDS = 24 * 3600;

export const TRIGGER_KINDS = ['enter', 'created_in'] as const;
export type TriggerKind = (typeof TRIGGER_KINDS)[number];
export const TRIGGER_KIND_LABELS: Record<TriggerKind, string> = {
  enter: 'Entra en la etapa',
  created_in: 'Creado en la etapa',
};

export const automationTriggerSchema = z.strictObject(
  {
    pipeline_id: kommoId('Elige el embudo de Kommo'),
    status_id: kommoId('Elige la etapa de Kommo'),
    on: z.enum(TRIGGER_KINDS, { error: 'Elige cuándo se envía: «Entra en la etapa» o «Creado en la etapa»' }),
    delay_seconds: z.coerce
      .number({ error: 'La demora debe ser un número de segundos' })
      .int('La demora debe ser un número entero de segundos')
      .min(0, 'La demora no puede ser negativa')
      .max(MAX_DELAY_SECONDS, 'La demora no puede superar 30 días')
      .optional()
      .default(0),
    reentry_days: z.coerce
      .number({ error: 'Los días de reingreso deben ser un número' })
      .int('Los días de reingreso deben ser un número entero')
      .min(0, 'Los días de reingreso no pueden ser negativos')
      .max(MAX_REENTRY_DAYS, 'Los días de reingreso no pueden superar 365')
      .optional()
      .default(30),
  },
  { error: 'El disparador es requerido' },
);
export type AutomationTrigger = z.output<typeof automationTriggerSchema>;
export type AutomationTriggerInput = z.input<typeof automationTriggerSchema>;

/** The lead's fields a template may use (`lead.name`, `lead.price`, `lead.custom_fields.{nombre}`). */
export interface LeadFields {
  name: string;
  price: number | null;
  custom_fields: Record<string, string>;
}

export const LEAD_FIELD_PREFIX = 'lead.';
export const LEAD_CUSTOM_FIELD_PREFIX = 'lead.custom_fields.';

/** Why an event's recipient was skipped at its due time (the recipient's error message). */
export const LEFT_STAGE = 'El lead ya no está en la etapa';
export const REENTRY = 'Reingreso en la etapa: ya recibió el mensaje de esta automatización';
export const STALE_EVENT = 'Evento vencido: pasaron más de 24 h desde su hora de envío';
export const LEAD_GONE = 'El lead ya no existe en Kommo';
export const NO_MAIN_CONTACT = 'El lead no tiene contacto principal';
export const CONTACT_GONE = 'El contacto principal ya no existe en Kommo';

/** The detail view's figures of an automatic campaign. */
export const automationViewSchema = z.object({
  trigger: z.object({
    pipeline_id: z.number(),
    status_id: z.number(),
    on: z.enum(TRIGGER_KINDS),
    delay_seconds: z.number(),
    reentry_days: z.number(),
  }),
  /** Trigger events recorded (each is one recipient). */
  events_received: z.number(),
  /** Recipients waiting for their due time. */
  waiting: z.number(),
  /** The earliest due time of those waiting (ISO), null when none. */
  next_due_at: z.string().nullable(),
  /** Skipped recipients by their reason, most frequent first. */
  skipped_by_reason: z.array(z.object({ reason: z.string(), count: z.number() })),
});
export type AutomationView = z.infer<typeof automationViewSchema>;
