import { z } from 'zod';
import { idSchema, isWellFormedText } from './common';

/**
 * Outbound webhooks (Standard Webhooks): endpoints of an organisation that receive its events,
 * signed with the endpoint's secret (`whsec_…`), shown once at creation and at each rotation.
 */
export const WEBHOOK_EVENTS = [
  'campaign.pending_approval',
  'campaign.started',
  'campaign.paused',
  'campaign.completed',
  'campaign.cancelled',
  'message.status',
  'reply.received',
  'contact.opted_out',
  'contact.opted_in',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export const WEBHOOK_EVENT_LABEL: Record<WebhookEvent, string> = {
  'campaign.pending_approval': 'Campaña pendiente de aprobación',
  'campaign.started': 'Campaña iniciada',
  'campaign.paused': 'Campaña pausada',
  'campaign.completed': 'Campaña completada',
  'campaign.cancelled': 'Campaña cancelada',
  'message.status': 'Estados de mensajes (en lotes de hasta 100)',
  'reply.received': 'Respuesta recibida',
  'contact.opted_out': 'Contacto dado de baja',
  'contact.opted_in': 'Contacto dado de alta',
};

/** The event «Enviar evento de prueba» sends; no endpoint subscribes to it. */
export const WEBHOOK_TEST_EVENT = 'webhook.test';

export const webhookEventSchema = z.enum(WEBHOOK_EVENTS, { error: 'Evento desconocido' });

const urlField = z
  .string({ error: 'La URL es obligatoria' })
  .trim()
  .min(1, 'La URL es obligatoria')
  .max(2000, 'La URL no puede superar 2000 caracteres')
  .refine(isWellFormedText, 'La URL contiene caracteres inválidos')
  .refine((v) => URL.canParse(v), 'La URL no es válida');

const eventsField = z
  .array(webhookEventSchema, { error: 'Elige al menos un evento' })
  .min(1, 'Elige al menos un evento')
  .max(WEBHOOK_EVENTS.length, 'Demasiados eventos')
  .transform((events) => [...new Set(events)]);

const descriptionField = z
  .string()
  .trim()
  .max(200, 'La descripción no puede superar 200 caracteres')
  .refine(isWellFormedText, 'La descripción contiene caracteres inválidos')
  .nullable()
  .optional();

export const createWebhookEndpointSchema = z.strictObject({
  url: urlField,
  events: eventsField,
  description: descriptionField,
});
export type CreateWebhookEndpointInput = z.input<typeof createWebhookEndpointSchema>;

/** Any field; `enabled: true` enables a disabled endpoint again (its reason is cleared). */
export const updateWebhookEndpointSchema = z
  .strictObject({
    url: urlField.optional(),
    events: eventsField.optional(),
    description: descriptionField,
    enabled: z.boolean({ error: 'Valor inválido' }).optional(),
  })
  .refine((v) => Object.keys(v).length > 0, 'Nada que cambiar');
export type UpdateWebhookEndpointInput = z.input<typeof updateWebhookEndpointSchema>;

export const webhookEndpointSchema = z.object({
  id: z.number(),
  url: z.string(),
  description: z.string().nullable(),
  events: z.array(z.string()),
  enabled: z.boolean(),
  /** Why the console disabled it (410, days of failures); null while enabled. */
  disabled_reason: z.string().nullable(),
  disabled_at: z.string().nullable(),
  /** Since when its deliveries fail (null: the last one succeeded). */
  failing_since: z.string().nullable(),
  /** Until when the secret before the last rotation still signs. */
  previous_secret_expires_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type WebhookEndpoint = z.infer<typeof webhookEndpointSchema>;

/** Creation and rotation: the only answers that carry the secret. */
export const webhookEndpointWithSecretSchema = webhookEndpointSchema.extend({ secret: z.string() });
export type WebhookEndpointWithSecret = z.infer<typeof webhookEndpointWithSecretSchema>;

export const webhookEndpointParamsSchema = z.object({ id: idSchema });
export const webhookDeliveryParamsSchema = z.object({ id: idSchema, deliveryId: idSchema });

export const WEBHOOK_DELIVERY_STATES = ['pending', 'delivered', 'failed'] as const;
export const WEBHOOK_DELIVERY_STATE_LABEL: Record<(typeof WEBHOOK_DELIVERY_STATES)[number], string> = {
  pending: 'Pendiente',
  delivered: 'Entregado',
  failed: 'Fallido',
};

export const webhookDeliveriesQuerySchema = z.strictObject({
  state: z.enum(WEBHOOK_DELIVERY_STATES, { error: 'Estado inválido' }).optional(),
  /** The `next_cursor` of the previous page. */
  cursor: z.string().regex(/^\d{1,18}$/, 'Cursor inválido').optional(),
  limit: z.coerce
    .number({ error: 'Límite inválido' })
    .int('Límite inválido')
    .min(1, 'El límite debe ser al menos 1')
    .max(100, 'El límite no puede superar 100')
    .default(25),
});

export const webhookAttemptSchema = z.object({
  at: z.string(),
  status_code: z.number().nullable(),
  duration_ms: z.number(),
  response_excerpt: z.string().nullable(),
  error: z.string().nullable(),
});
export type WebhookAttempt = z.infer<typeof webhookAttemptSchema>;

export const webhookDeliverySchema = z.object({
  id: z.string(),
  msg_id: z.string(),
  event_type: z.string(),
  state: z.enum(WEBHOOK_DELIVERY_STATES),
  attempts: z.number(),
  next_attempt_at: z.string().nullable(),
  last_status_code: z.number().nullable(),
  last_error: z.string().nullable(),
  created_at: z.string(),
  finished_at: z.string().nullable(),
  /** The body sent (the same on every attempt). */
  body: z.string(),
  /** The newest attempts first (at most 10). */
  attempt_log: z.array(webhookAttemptSchema),
});
export type WebhookDelivery = z.infer<typeof webhookDeliverySchema>;

export const webhookDeliveryPageSchema = z.object({
  items: z.array(webhookDeliverySchema),
  next_cursor: z.string().nullable(),
});
export type WebhookDeliveryPage = z.infer<typeof webhookDeliveryPageSchema>;
