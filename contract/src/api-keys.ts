import { z } from 'zod';
import type { Permission } from './organizations';

/**
 * API keys let other systems (a shop's backend, a BI tool, an automation flow) use the public
 * API `/api/v1` in the name of an organisation. A key carries scopes; each scope stands for the
 * permissions a member would need, and a key never does more than its creator's role allows.
 * A key never approves, never manages members and never exports.
 */
export const API_KEY_SCOPES = [
  'campaigns:read',
  'campaigns:write',
  'campaigns:send',
  'contacts:read',
  'templates:read',
  'webhooks:manage',
] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

export const API_KEY_SCOPE_LABEL: Record<ApiKeyScope, string> = {
  'campaigns:read': 'Leer campañas y resultados',
  'campaigns:write': 'Crear y editar campañas, agregar destinatarios',
  'campaigns:send': 'Iniciar, programar, pausar, reanudar y cancelar campañas',
  'contacts:read': 'Leer contactos',
  'templates:read': 'Leer plantillas',
  'webhooks:manage': 'Administrar webhooks',
};

/** The member's permissions a scope stands for: the creator must hold them all. */
export const API_KEY_SCOPE_PERMISSIONS: Record<ApiKeyScope, readonly Permission[]> = {
  'campaigns:read': ['campaigns.view'],
  'campaigns:write': ['campaigns.edit'],
  'campaigns:send': ['campaigns.start', 'campaigns.send'],
  'contacts:read': ['contacts.view', 'contacts.phones'],
  'templates:read': ['campaigns.view'],
  'webhooks:manage': ['webhooks.manage'],
};

/** Every key starts with it, so a leaked key is easy to recognise (and to search for). */
export const API_KEY_PREFIX = 'msv_live_';
/** Active (not revoked, not expired) keys an organisation may hold. */
export const MAX_ACTIVE_API_KEYS = 20;
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 120;

export const createApiKeySchema = z.strictObject({
  name: z
    .string({ error: 'El nombre es requerido' })
    .trim()
    .min(1, 'El nombre es requerido')
    .max(100, 'El nombre no puede superar 100 caracteres'),
  scopes: z
    .array(z.enum(API_KEY_SCOPES, { error: 'Permiso de clave inválido' }), { error: 'Elige al menos un permiso' })
    .min(1, 'Elige al menos un permiso')
    .max(API_KEY_SCOPES.length, 'Demasiados permisos'),
  whatsapp_account_ids: z
    .array(z.number({ error: 'Número inválido' }).int().positive('Número inválido'), { error: 'Números inválidos' })
    .max(500, 'Demasiados números')
    .default([]),
  expires_at: z.iso
    .datetime({ offset: true, error: 'Fecha de vencimiento inválida' })
    .nullable()
    .optional()
    .refine((v) => !v || Date.parse(v) > Date.now(), 'La fecha de vencimiento ya pasó'),
  rate_limit_per_minute: z
    .number({ error: 'Límite inválido' })
    .int('Límite inválido')
    .min(1, 'El límite debe ser al menos 1 petición por minuto')
    .max(10_000, 'El límite no puede superar 10.000 peticiones por minuto')
    .default(DEFAULT_RATE_LIMIT_PER_MINUTE),
});
export type CreateApiKeyInput = z.input<typeof createApiKeySchema>;

export const apiKeySchema = z.object({
  id: z.number(),
  name: z.string(),
  /** The key's first characters, to recognise it (the key itself is shown only once). */
  start: z.string(),
  scopes: z.array(z.enum(API_KEY_SCOPES)),
  whatsapp_account_ids: z.array(z.number()),
  rate_limit_per_minute: z.number(),
  created_by: z.object({ id: z.number(), name: z.string() }).nullable(),
  created_at: z.string(),
  expires_at: z.string().nullable(),
  last_used_at: z.string().nullable(),
  last_used_ip: z.string().nullable(),
  revoked_at: z.string().nullable(),
  status: z.enum(['active', 'expired', 'revoked']),
});
export type ApiKey = z.infer<typeof apiKeySchema>;

export const API_KEY_STATUS_LABEL: Record<ApiKey['status'], string> = {
  active: 'Activa',
  expired: 'Vencida',
  revoked: 'Revocada',
};

/** The answer to a creation: the only time the whole key is shown. */
export const createdApiKeySchema = apiKeySchema.extend({ key: z.string() });
export type CreatedApiKey = z.infer<typeof createdApiKeySchema>;
