import { z } from 'zod';
import { idSchema } from './common';
import {
  checkFilterValueTotal,
  contactFilterShape,
  customFieldFiltersSchema,
  excludedTagsSchema,
  searchQuerySchema,
  tagOperatorSchema,
  tagsSchema,
} from './contact-filter';

/** Page sizes the contacts screen offers (spec §9); the API accepts any limit up to the largest. */
export const CONTACT_PAGE_SIZES = [10, 20, 50, 100] as const;
export const DEFAULT_CONTACT_PAGE_SIZE = 20;
export const MAX_CONTACT_PAGE_SIZE = 100;

/** One synced contact as the API returns it. */
export const contactSchema = z.object({
  id: z.number(),
  kommo_id: z.number(),
  name: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  /** E.164, or null when Kommo holds no valid number. */
  phone: z.string().nullable(),
  /** What Kommo holds, as typed. */
  phone_raw: z.string().nullable(),
  email: z.string().nullable(),
  tags_array: z.array(z.string()),
  custom_fields: z.record(z.string(), z.string()),
});
export type Contact = z.infer<typeof contactSchema>;

/**
 * JSON text in a query string (the spec sends `tags` and `customFieldFilters` this way).
 * Malformed JSON is a validation error with a Spanish message, never a 500.
 */
function jsonText<T extends z.ZodType>(schema: T) {
  return z
    .string()
    .max(20_000, 'demasiado largo')
    .transform((text, ctx) => {
      if (text.trim() === '') return undefined;
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'JSON inválido' });
        return z.NEVER;
      }
    })
    .pipe(schema.optional())
    .optional();
}

const limitSchema = z.coerce
  .number({ error: 'limit inválido' })
  .int('limit inválido')
  .min(1, 'limit inválido')
  .max(MAX_CONTACT_PAGE_SIZE, `limit no puede superar ${MAX_CONTACT_PAGE_SIZE}`);
/**
 * Offset paging reads and throws away every skipped row, so it is bounded: deep pages cost the
 * database what the first ones do, whatever the account size (the export walks by keyset instead).
 */
export const MAX_CONTACT_OFFSET = 10_000;
const offsetSchema = z.coerce
  .number({ error: 'offset inválido' })
  .int('offset inválido')
  .min(0, 'offset inválido')
  .max(MAX_CONTACT_OFFSET, `offset no puede superar ${MAX_CONTACT_OFFSET}; afiná el filtro para ver esos contactos`);

/** The filter as query parameters: tags, excludedTags and customFieldFilters arrive as JSON text. */
export const contactFilterQueryShape = {
  searchQuery: searchQuerySchema.optional(),
  tags: jsonText(tagsSchema),
  tagOperator: tagOperatorSchema.optional(),
  excludedTags: jsonText(excludedTagsSchema),
  customFieldFilters: jsonText(customFieldFiltersSchema),
};
export const contactFilterQuerySchema = z.object(contactFilterQueryShape).check(checkFilterValueTotal);

export const filteredContactsQuerySchema = z
  .object({
    ...contactFilterQueryShape,
    limit: limitSchema.optional().default(DEFAULT_CONTACT_PAGE_SIZE),
    offset: offsetSchema.optional().default(0),
  })
  .check(checkFilterValueTotal);
export type FilteredContactsQuery = z.input<typeof filteredContactsQuerySchema>;

/**
 * A count the screen gets within its time budget: exact, or (`approximate: true`) an estimate
 * from a sample while the exact figure is computed; asking again returns the exact one.
 */
const approximateSchema = z.boolean().optional();

export const filteredContactsResponseSchema = z.object({
  contacts: z.array(contactSchema),
  total: z.number(),
  total_approximate: approximateSchema,
  limit: z.number(),
  offset: z.number(),
});
export type FilteredContactsResponse = z.infer<typeof filteredContactsResponseSchema>;

/** GET /contacts: plain paging over one account (account_id required) or the user's first account. */
export const listContactsQuerySchema = z.object({
  account_id: idSchema.optional(),
  limit: limitSchema.optional().default(DEFAULT_CONTACT_PAGE_SIZE),
  offset: offsetSchema.optional().default(0),
});

export const countResponseSchema = z.object({ count: z.number(), approximate: approximateSchema });

export const recipientCountQuerySchema = z.object({ account_id: idSchema, ...contactFilterQueryShape }).check(checkFilterValueTotal);

export const accountParamsSchema = z.object({ accountId: idSchema });
export const fieldParamsSchema = z.object({
  accountId: idSchema,
  fieldName: z.string().min(1, 'Campo inválido').max(200, 'Campo inválido'),
});

export const tagsResponseSchema = z.array(z.string());

export const customFieldInfoSchema = z.object({
  id: z.number(),
  name: z.string(),
  type: z.string(),
  code: z.string().nullable(),
});
export type CustomFieldInfo = z.infer<typeof customFieldInfoSchema>;

export const customFieldsBodySchema = z.strictObject({ accountId: idSchema });

export const fieldValuesQuerySchema = z.object({
  search: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional().default(200),
});
export const filteredFieldValuesQuerySchema = z
  .object({
    ...contactFilterQueryShape,
    excludeFieldName: z.string().max(200).optional(),
    search: z.string().max(200).optional(),
    limit: z.coerce.number().int().min(1).max(1000).optional().default(200),
  })
  .check(checkFilterValueTotal);
export const fieldValueSchema = z.object({ value: z.string(), count: z.number() });
export type FieldValue = z.infer<typeof fieldValueSchema>;
export const fieldValuesResponseSchema = z.object({ field: z.string(), values: z.array(fieldValueSchema) });

/** GET /filter-options: everything the filter panel needs for one account, in one call. */
export const filterOptionsResponseSchema = z.object({
  tags: z.array(z.string()),
  customFields: z.array(
    z.object({ name: z.string(), type: z.string(), values: z.array(z.string()), total_values: z.number() }),
  ),
  total_contacts: z.number(),
});
export type FilterOptions = z.infer<typeof filterOptionsResponseSchema>;

/**
 * Body of POST /contacts/{accountId}/export: the filter object itself (not JSON text), either
 * nested as the spec writes it (`{filters, format}`) or flat (`{searchQuery, tags, …, format}`),
 * which the console has always sent. Both read as one flat filter.
 */
export const exportBodySchema = z
  .strictObject({
    ...contactFilterShape,
    filters: z.strictObject(contactFilterShape).check(checkFilterValueTotal).optional(),
    format: z.enum(['csv'], { error: 'Formato no soportado' }).optional().default('csv'),
  })
  .check(checkFilterValueTotal)
  .check((ctx) => {
    const { filters, searchQuery, tags, excludedTags, customFieldFilters } = ctx.value;
    if (filters && (searchQuery !== '' || tags.length > 0 || excludedTags.length > 0 || Object.keys(customFieldFilters).length > 0)) {
      ctx.issues.push({ code: 'custom', message: 'Envía los filtros dentro de "filters" o sueltos, no de las dos formas', input: ctx.value, path: ['filters'] });
    }
  })
  .transform(({ filters, format, ...flat }) => ({ ...(filters ?? flat), format }));
export type ExportBody = z.input<typeof exportBodySchema>;
