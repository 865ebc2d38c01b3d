import { z } from 'zod';

export const blacklistEntrySchema = z.object({
  id: z.number(),
  phone: z.string(),
  reason: z.string().nullable(),
  created_at: z.string(),
  /** Where it came from: manual (the operator), keyword, button, meta_marketing (stopped marketing in WhatsApp). */
  origin: z.enum(['manual', 'keyword', 'button', 'meta_marketing']).optional(),
  /** The person's business-scoped user id, when known. */
  bsuid: z.string().nullable().optional(),
});

/** Spanish labels of `origin` for the blacklist screen. */
export const BLACKLIST_ORIGIN_LABELS: Record<'manual' | 'keyword' | 'button' | 'meta_marketing', string> = {
  manual: 'Agregado a mano',
  keyword: 'Palabra de baja',
  button: 'Botón «Baja»',
  meta_marketing: 'Dejó de recibir marketing (WhatsApp)',
};
export type BlacklistEntry = z.infer<typeof blacklistEntrySchema>;

export const addBlacklistSchema = z.strictObject({
  phone: z
    .string({ error: 'El teléfono es requerido' })
    .trim()
    .min(1, 'El teléfono es requerido')
    .max(40, 'El teléfono es demasiado largo'),
  reason: z.string().trim().max(500, 'El motivo es demasiado largo').optional().nullable(),
});
export type AddBlacklistInput = z.input<typeof addBlacklistSchema>;

export const blacklistSearchQuerySchema = z.object({ query: z.string().max(100).optional() });
export const blacklistCheckQuerySchema = z.object({
  phone: z.string({ error: 'El teléfono es requerido' }).trim().min(1, 'El teléfono es requerido').max(40),
});
export const blacklistCheckResponseSchema = z.object({
  blacklisted: z.boolean(),
  entry: blacklistEntrySchema.nullable(),
});
