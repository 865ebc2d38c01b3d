import { z } from 'zod';

/**
 * The contact filter of the spec (§3). One schema, used by the contacts screen, the
 * campaign form and every server route that selects contacts, so they all agree.
 */
export const CUSTOM_FIELD_MODES = ['none', 'specific', 'manual', 'exists', 'notExists'] as const;
export type CustomFieldMode = (typeof CUSTOM_FIELD_MODES)[number];

/**
 * Bounds of one filter. Every condition becomes SQL with bound parameters and costs work per
 * contact, so an unbounded filter could pass PostgreSQL's 65,535 parameters or stall the database.
 */
export const FILTER_LIMITS = {
  customFields: 50,
  /** Tags (included and excluded) plus "specific" values, all fields together. */
  values: 2_000,
  tagLength: 200,
  searchLength: 200,
  fieldNameLength: 200,
  valueLength: 500,
} as const;

export const FILTER_MESSAGES = {
  tooManyFields: `Demasiados filtros de campos personalizados (máximo ${FILTER_LIMITS.customFields})`,
  tooManyValues: `Demasiados valores en el filtro (máximo ${FILTER_LIMITS.values} entre etiquetas y valores)`,
  searchTooLong: 'La búsqueda es demasiado larga',
  fieldNameTooLong: 'Nombre de campo demasiado largo',
  valueTooLong: 'Valor de filtro demasiado largo',
} as const;

// `abort` stops at the length check, so nothing later (a regex, a transform) sees an over-long text.
const valueSchema = z.string().max(FILTER_LIMITS.valueLength, { error: FILTER_MESSAGES.valueTooLong, abort: true });
export const fieldNameSchema = z.string().max(FILTER_LIMITS.fieldNameLength, { error: FILTER_MESSAGES.fieldNameTooLong, abort: true });
export const searchQuerySchema = z.string().max(FILTER_LIMITS.searchLength, { error: FILTER_MESSAGES.searchTooLong, abort: true });

export const customFieldFilterSchema = z.object({
  mode: z.enum(CUSTOM_FIELD_MODES, { error: 'Modo de filtro inválido' }),
  values: z.array(valueSchema).max(FILTER_LIMITS.values, { error: FILTER_MESSAGES.tooManyValues, abort: true }).optional(),
  value: valueSchema.optional(),
  manualValue: valueSchema.optional(),
});
export type CustomFieldFilter = z.infer<typeof customFieldFilterSchema>;

export const tagOperatorSchema = z.enum(['AND', 'OR'], { error: 'Operador de etiquetas inválido' });

const tagSchema = z.string({ error: 'Cada etiqueta debe ser un texto' }).max(FILTER_LIMITS.tagLength, { error: 'Etiqueta demasiado larga', abort: true });

export const tagsSchema = z.array(tagSchema, { error: 'Las etiquetas deben ser una lista' }).max(FILTER_LIMITS.values, {
  error: FILTER_MESSAGES.tooManyValues,
  abort: true,
});

/** "Sin las etiquetas": the contacts holding any of these are left out, whatever else matches. */
export const excludedTagsSchema = z.array(tagSchema, { error: 'Las etiquetas excluidas deben ser una lista' }).max(FILTER_LIMITS.values, {
  error: FILTER_MESSAGES.tooManyValues,
  abort: true,
});

export const customFieldFiltersSchema = z
  .record(fieldNameSchema, customFieldFilterSchema)
  .check((ctx) => {
    if (Object.keys(ctx.value).length > FILTER_LIMITS.customFields) {
      ctx.issues.push({ code: 'custom', message: FILTER_MESSAGES.tooManyFields, input: ctx.value, abort: true });
    }
  });

/** Tags, excluded tags and "specific" values together: the one budget that grows the SQL with the input. */
export function filterValueCount(f: { tags?: string[]; excludedTags?: string[]; customFieldFilters?: Record<string, { values?: string[] }> }): number {
  let n = (f.tags ?? []).length + (f.excludedTags ?? []).length;
  for (const c of Object.values(f.customFieldFilters ?? {})) n += (c.values ?? []).length;
  return n;
}

/** The cross-field bound, for every schema that carries a filter (body or query string). */
export function checkFilterValueTotal(ctx: {
  value: { tags?: string[]; excludedTags?: string[]; customFieldFilters?: Record<string, { values?: string[] }> };
  issues: unknown[];
}): void {
  if (filterValueCount(ctx.value) > FILTER_LIMITS.values) {
    (ctx.issues as z.core.$ZodRawIssue[]).push({ code: 'custom', message: FILTER_MESSAGES.tooManyValues, input: ctx.value, path: ['tags'] });
  }
}

export const contactFilterShape = {
  searchQuery: searchQuerySchema.optional().default(''),
  tags: tagsSchema.optional().default([]),
  tagOperator: tagOperatorSchema.optional().default('OR'),
  excludedTags: excludedTagsSchema.optional().default([]),
  customFieldFilters: customFieldFiltersSchema.optional().default({}),
};

export const contactFilterSchema = z.object(contactFilterShape).check(checkFilterValueTotal);
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
    (f.excludedTags ?? []).length > 0 ||
    Object.values(f.customFieldFilters ?? {}).some((c) => isCustomFieldFilterActive(c))
  );
}

/*
 * The encoding half of the wire format, beside the decoding half (`contactFilterQueryShape` in
 * `contacts.ts`): the web app, the e2e tests and the server tests all send filters through these,
 * so none of them re-encodes a query string by hand.
 */

export const EMPTY_FILTER: ContactFilter = { searchQuery: '', tags: [], tagOperator: 'OR', excludedTags: [], customFieldFilters: {} };

/** Only the field filters that narrow anything travel; the rest would just vary cache keys. */
export function activeFieldFilters(f: ContactFilter): ContactFilter['customFieldFilters'] {
  return Object.fromEntries(Object.entries(f.customFieldFilters).filter(([, v]) => isCustomFieldFilterActive(v)));
}

/** The filter as the API's query parameters (tags and field filters as JSON text, spec §7). */
export function filterToQuery(f: ContactFilterInput): Record<string, string | undefined> {
  const full = { ...EMPTY_FILTER, ...f };
  const fields = activeFieldFilters(full);
  return {
    searchQuery: full.searchQuery.trim() || undefined,
    tags: full.tags.length ? JSON.stringify(full.tags) : undefined,
    tagOperator: full.tags.length ? full.tagOperator : undefined,
    excludedTags: full.excludedTags.length ? JSON.stringify(full.excludedTags) : undefined,
    customFieldFilters: Object.keys(fields).length ? JSON.stringify(fields) : undefined,
  };
}

/** `filterToQuery` as a query string, plus any other parameters of the route (`limit`, `account_id`…). */
export function filterToSearchParams(f: ContactFilterInput, extra: Record<string, string | number | undefined> = {}): URLSearchParams {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...filterToQuery(f), ...extra })) if (v !== undefined) params.set(k, String(v));
  return params;
}

/** A filter as a request body: `excludedTags` only when there are some, so the spec's payload stays as it was. */
export type ContactFilterBody = Omit<ContactFilter, 'excludedTags'> & { excludedTags?: string[] };

/** The filter as a request body (export, campaign creation). */
export function filterToBody(f: ContactFilterInput): ContactFilterBody {
  const full = { ...EMPTY_FILTER, ...f };
  return {
    searchQuery: full.searchQuery.trim(),
    tags: full.tags,
    tagOperator: full.tagOperator,
    ...(full.excludedTags.length > 0 ? { excludedTags: full.excludedTags } : {}),
    customFieldFilters: activeFieldFilters(full),
  };
}
