import { z } from 'zod';

/**
 * The contact filter of the spec (§3). One schema, used by the contacts screen, the
 * campaign form and every server route that selects contacts, so they all agree.
 */
export const CUSTOM_FIELD_MODES = ['none', 'specific', 'manual', 'exists', 'notExists'] as const;
export type CustomFieldMode = (typeof CUSTOM_FIELD_MODES)[number];

export const customFieldFilterSchema = z.object({
  mode: z.enum(CUSTOM_FIELD_MODES, { error: 'Modo de filtro inválido' }),
  values: z.array(z.string().max(500)).max(500).optional(),
  value: z.string().max(500).optional(),
  manualValue: z.string().max(500).optional(),
});
export type CustomFieldFilter = z.infer<typeof customFieldFilterSchema>;

export const tagOperatorSchema = z.enum(['AND', 'OR'], { error: 'Operador de etiquetas inválido' });

export const contactFilterSchema = z.object({
  searchQuery: z.string().max(200, 'La búsqueda es demasiado larga').optional().default(''),
  tags: z.array(z.string().max(200)).max(200).optional().default([]),
  tagOperator: tagOperatorSchema.optional().default('OR'),
  customFieldFilters: z.record(z.string().max(200), customFieldFilterSchema).optional().default({}),
});
export type ContactFilter = z.infer<typeof contactFilterSchema>;
export type ContactFilterInput = z.input<typeof contactFilterSchema>;

/** Spec §5: a field filter counts only when it can actually narrow the result. */
export function isCustomFieldFilterActive(f: CustomFieldFilter | undefined): boolean {
  if (!f) return false;
  switch (f.mode) {
    case 'manual':
      return (f.manualValue ?? f.value ?? '').trim() !== '';
    case 'exists':
    case 'notExists':
      return true;
    case 'specific':
      return (f.values ?? []).length > 0;
    default:
      return false;
  }
}

export function isFilterActive(f: ContactFilterInput): boolean {
  return (
    (f.searchQuery ?? '').trim() !== '' ||
    (f.tags ?? []).length > 0 ||
    Object.values(f.customFieldFilters ?? {}).some((c) => isCustomFieldFilterActive(c))
  );
}
