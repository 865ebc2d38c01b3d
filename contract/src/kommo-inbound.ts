import { z } from 'zod';

/**
 * What the console reads of Kommo's webhooks (form-encoded, parsed into nested objects by the
 * server): lead stage moves and new leads, and which contacts were added, edited or deleted.
 * Unknown fields and unknown entity kinds are ignored (stripped); an item that does not parse is
 * dropped on its own, so one odd item never costs the others of the same POST.
 */
const kommoId = z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER);
/** Unix seconds. */
const unixSeconds = z.coerce.number().int().min(0).max(32_503_680_000);

/** A list of Kommo items where each item is kept only if it parses. */
function itemsOf<T extends z.ZodType>(item: T) {
  return z
    .array(z.unknown())
    .max(500)
    .transform((list) =>
      list.flatMap((x) => {
        const r = item.safeParse(x);
        return r.success ? [r.data as z.output<T>] : [];
      }),
    )
    .optional()
    .catch(undefined);
}

export const kommoHookLeadSchema = z.object({
  id: kommoId,
  status_id: kommoId,
  pipeline_id: kommoId,
  old_status_id: kommoId.optional().catch(undefined),
  old_pipeline_id: kommoId.optional().catch(undefined),
  created_at: unixSeconds.optional().catch(undefined),
  updated_at: unixSeconds.optional().catch(undefined),
  last_modified: unixSeconds.optional().catch(undefined),
});
export type KommoHookLead = z.infer<typeof kommoHookLeadSchema>;

export const kommoHookEntitySchema = z.object({ id: kommoId });

export const kommoHookBodySchema = z.object({
  account: z
    .object({ id: kommoId.optional().catch(undefined), subdomain: z.string().max(100).optional().catch(undefined) })
    .optional()
    .catch(undefined),
  leads: z
    .object({ status: itemsOf(kommoHookLeadSchema), add: itemsOf(kommoHookLeadSchema) })
    .optional()
    .catch(undefined),
  contacts: z
    .object({ add: itemsOf(kommoHookEntitySchema), update: itemsOf(kommoHookEntitySchema), delete: itemsOf(kommoHookEntitySchema) })
    .optional()
    .catch(undefined),
});
export type KommoHookBody = z.infer<typeof kommoHookBodySchema>;

/** The address of an account's webhook: 32 random bytes in base64url. */
export const HOOK_SECRET_PATTERN = /^[A-Za-z0-9_-]{43}$/;
export const kommoHookParamsSchema = z.object({ secret: z.string().max(200) });

/** «Mantener contactos al día» on a Kommo account. */
export const kommoKeepFreshSchema = z.strictObject({
  keep_fresh: z.boolean({ error: 'Indica si se mantienen los contactos al día' }),
});
export type KommoKeepFreshInput = z.infer<typeof kommoKeepFreshSchema>;

export const HOOK_STATUSES = ['subscribed', 'unavailable', 'off'] as const;
export type HookStatus = (typeof HOOK_STATUSES)[number];

/** How the account's contacts are kept current between syncs, as the account card shows it. */
export const kommoFreshnessSchema = z.object({
  keep_fresh: z.boolean(),
  /** `webhooks`: Kommo calls us; `polling`: the catch-up asks Kommo every minute; `off`: neither. */
  source: z.enum(['webhooks', 'polling', 'off']),
  hook_status: z.enum(HOOK_STATUSES).nullable(),
  /** The last webhook received, or the last catch-up, whichever is later. */
  last_event_at: z.string().nullable(),
  /** Why Kommo refused the webhooks, or why the last catch-up failed. */
  error: z.string().nullable(),
});
export type KommoFreshness = z.infer<typeof kommoFreshnessSchema>;

export const FRESHNESS_SOURCE_LABELS = {
  webhooks: 'Webhooks de Kommo activos',
  polling: 'Sin webhooks: se consulta Kommo cada minuto',
  off: 'Desactivado: los contactos se actualizan solo al sincronizar',
} as const;
