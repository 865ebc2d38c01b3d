import { z } from 'zod';
import { idSchema } from './common';

/**
 * Template variables: `{{n}}` placeholders in a template's header and body, and how each
 * one is filled from a contact.
 *
 * Mapping key convention (shared by the server, the sender and the mapping dialog):
 * - `variable_{n}` fills `{{n}}` of the BODY (the spec's "variable_{n}");
 * - `header_variable_{n}` fills `{{n}}` of a TEXT HEADER (a header and a body both start at
 *   `{{1}}`, so they need separate keys).
 */
export const PLACEHOLDER_PATTERN = /\{\{\s*(\d+)\s*\}\}/g;

/** The placeholder numbers of a text, once each, in order of first appearance. */
export function placeholdersOf(text: string | null | undefined): number[] {
  const seen: number[] = [];
  for (const match of (text ?? '').matchAll(PLACEHOLDER_PATTERN)) {
    const n = Number(match[1]);
    if (!seen.includes(n)) seen.push(n);
  }
  return seen;
}

export const hasPlaceholders = (text: string | null | undefined) => placeholdersOf(text).length > 0;

/** Replaces each `{{n}}` with values[n]; placeholders without a value stay visible. */
export function renderText(text: string, values: Record<number, string>): string {
  return text.replace(PLACEHOLDER_PATTERN, (whole, n: string) => {
    const value = values[Number(n)];
    return value === undefined ? whole : value;
  });
}

export const bodyVariableKey = (n: number) => `variable_${n}`;
export const headerVariableKey = (n: number) => `header_variable_${n}`;

/** The shape both the contract and the database agree on for a component. */
export interface TemplateComponentLike {
  type: string;
  format?: string;
  text?: string;
}

export interface TemplateVariableSlot {
  key: string;
  component: 'header' | 'body';
  placeholder: number;
  /** `{{n}}` for the body, `{{n}}` of the header otherwise; used in messages and labels. */
  label: string;
}

export const isTextHeader = (c: TemplateComponentLike) =>
  c.type.toUpperCase() === 'HEADER' && (c.format ?? 'TEXT').toUpperCase() === 'TEXT';

/** Every variable a template needs filled: text-header placeholders first, then body ones. */
export function templateVariableSlots(components: TemplateComponentLike[]): TemplateVariableSlot[] {
  const slots: TemplateVariableSlot[] = [];
  const header = components.find(isTextHeader);
  for (const n of sortedPlaceholders(header?.text)) {
    slots.push({ key: headerVariableKey(n), component: 'header', placeholder: n, label: `{{${n}}} (encabezado)` });
  }
  const body = components.find((c) => c.type.toUpperCase() === 'BODY');
  for (const n of sortedPlaceholders(body?.text)) {
    slots.push({ key: bodyVariableKey(n), component: 'body', placeholder: n, label: `{{${n}}}` });
  }
  return slots;
}

/** Meta fills positional parameters by number, so `{{1}}…{{max}}` in numeric order. */
export function sortedPlaceholders(text: string | null | undefined): number[] {
  return [...placeholdersOf(text)].sort((a, b) => a - b);
}

/** Built-in contact fields; custom fields use the key `custom_fields.{field name}`. */
export const BUILT_IN_FIELDS = ['name', 'first_name', 'last_name', 'phone', 'email'] as const;
export type BuiltInField = (typeof BUILT_IN_FIELDS)[number];
export const CUSTOM_FIELD_PREFIX = 'custom_fields.';
export const customFieldKey = (name: string) => `${CUSTOM_FIELD_PREFIX}${name}`;

export const availableVariableSchema = z.object({
  key: z.string(),
  displayName: z.string(),
  category: z.enum(['contact', 'custom']),
  description: z.string(),
});
export type AvailableVariable = z.infer<typeof availableVariableSchema>;

export const variableMappingSchema = z.object({
  templateVariable: z.string(),
  sourceType: z.string(),
  sourceField: z.string(),
  defaultValue: z.string(),
});
export type VariableMapping = z.infer<typeof variableMappingSchema>;

const variableKey = z
  .string()
  .trim()
  .regex(/^(header_)?variable_\d{1,3}$/, 'Variable inválida (use variable_{n} o header_variable_{n})');

export const saveMappingsSchema = z.strictObject({
  mappings: z
    .array(
      z.strictObject({
        templateVariable: variableKey,
        sourceType: z.literal('contact', { error: 'sourceType debe ser contact' }).optional().default('contact'),
        sourceField: z.string().trim().min(1, 'Selecciona un campo').max(300),
        defaultValue: z.string().max(1024).optional().default(''),
      }),
    )
    .max(200),
});
export type SaveMappingsInput = z.input<typeof saveMappingsSchema>;

export const previewSchema = z.strictObject({
  /** Values by variable key (`variable_1`, `header_variable_1`) or by placeholder number ("1"). */
  sampleData: z.record(z.string().max(100), z.string().max(1024)).optional().default({}),
});
export const previewResponseSchema = z.object({
  processedText: z.string(),
  header: z.string().nullable(),
  body: z.string(),
  footer: z.string().nullable(),
});
export type PreviewResponse = z.infer<typeof previewResponseSchema>;

export const testMappingSchema = z.strictObject({ contactId: idSchema });
export const testMappingResponseSchema = previewResponseSchema.extend({
  contactId: z.number(),
  values: z.record(z.string(), z.string()),
});
export type TestMappingResponse = z.infer<typeof testMappingResponseSchema>;

export const templateVariablesResponseSchema = z.object({
  templateId: z.number(),
  variables: z.array(
    z.object({ key: z.string(), component: z.enum(['header', 'body']), placeholder: z.number(), label: z.string() }),
  ),
  availableVariables: z.array(availableVariableSchema),
  mappings: z.array(variableMappingSchema),
});
export type TemplateVariablesResponse = z.infer<typeof templateVariablesResponseSchema>;
