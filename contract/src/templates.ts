import { z } from 'zod';
import { idSchema } from './common';
import { placeholdersOf } from './variables';

/** Spec §9. */
export const TEMPLATE_LANGUAGES = ['es', 'en', 'pt', 'fr'] as const;
export const TEMPLATE_CATEGORIES = ['utility', 'marketing', 'authentication'] as const;
export const HEADER_MAX = 60;
export const BODY_MAX = 1024;
export const FOOTER_MAX = 60;
export const TEMPLATE_NAME_PATTERN = /^[a-zA-Z0-9_]+$/;
export const TEMPLATE_NAME_MESSAGE = 'Solo letras, números y guiones bajos';
export const BODY_REQUIRED_MESSAGE = 'El texto del cuerpo es requerido';

/**
 * Meta has no plain "pt" template language: Portuguese is pt_BR or pt_PT. The console
 * offers the spec's four codes and submits Brazilian Portuguese for "pt".
 */
export const metaLanguageCode = (language: string) => (language === 'pt' ? 'pt_BR' : language);

export const templateComponentSchema = z.object({
  type: z.string(),
  format: z.string().optional(),
  text: z.string().optional(),
  example: z.unknown().optional(),
  buttons: z.array(z.unknown()).optional(),
});
export type TemplateComponentView = z.infer<typeof templateComponentSchema>;

export const templateSchema = z.object({
  id: z.number(),
  whatsapp_account_id: z.number(),
  kommo_account_id: z.number().nullable(),
  meta_id: z.string().nullable(),
  name: z.string(),
  language: z.string(),
  category: z.string(),
  status: z.string(),
  components: z.array(templateComponentSchema),
  rejection_reason: z.string().nullable(),
  /** Why the last submission to Meta failed; null once Meta accepted it. */
  submission_error: z.string().nullable(),
  has_variables: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Template = z.infer<typeof templateSchema>;

export const syncTemplatesSchema = z.strictObject({
  whatsapp_account_id: idSchema,
});

export const syncResultSchema = z.object({
  success: z.boolean(),
  synced: z.number(),
  updated: z.number(),
  deleted: z.number(),
  errors: z.array(z.string()),
});
export type SyncResult = z.infer<typeof syncResultSchema>;

export const syncAllResultSchema = z.object({
  success: z.boolean(),
  results: z.array(
    z.object({
      whatsapp_account_id: z.number(),
      account_name: z.string(),
      success: z.boolean(),
      synced: z.number(),
      updated: z.number(),
      deleted: z.number(),
      errors: z.array(z.string()),
      error: z.string().optional(),
    }),
  ),
});
export type SyncAllResult = z.infer<typeof syncAllResultSchema>;

/** The placeholder rules of spec §5, shared by the dialog and the API. */
export function placeholderProblem(text: string, where: string): string | null {
  const numbers = placeholdersOf(text);
  for (let i = 0; i < numbers.length; i++) {
    if (numbers[i] !== i + 1) {
      return `Las variables del ${where} deben numerarse consecutivamente desde {{1}} ({{1}}, {{2}}, ...)`;
    }
  }
  const malformed = text.replace(/\{\{\s*\d+\s*\}\}/g, '').match(/\{\{|\}\}/);
  if (malformed) return `El ${where} tiene llaves dobles que no son una variable válida ({{n}})`;
  return null;
}

const sampleList = z.array(z.string().trim().max(200, 'Cada ejemplo admite hasta 200 caracteres')).max(50).optional().default([]);

const componentInput = z.strictObject({
  type: z.enum(['HEADER', 'BODY', 'FOOTER'], { error: 'Tipo de componente inválido' }),
  format: z.literal('TEXT').optional(),
  text: z.string().optional().default(''),
});

export const createTemplateSchema = z
  .strictObject({
    whatsapp_account_id: idSchema,
    kommo_account_id: z.union([idSchema, z.null()]).optional(),
    name: z
      .string({ error: 'El nombre es requerido' })
      .trim()
      .min(1, 'El nombre es requerido')
      .max(512, 'El nombre admite hasta 512 caracteres')
      .regex(TEMPLATE_NAME_PATTERN, TEMPLATE_NAME_MESSAGE),
    language: z.enum(TEMPLATE_LANGUAGES, { error: 'Idioma inválido (es, en, pt, fr)' }).optional().default('es'),
    category: z
      .string()
      .trim()
      .toLowerCase()
      .pipe(z.enum(TEMPLATE_CATEGORIES, { error: 'Categoría inválida (utility, marketing, authentication)' }))
      .optional()
      .default('utility'),
    components: z.array(componentInput).min(1, BODY_REQUIRED_MESSAGE).max(3),
    templateSamples: z
      .strictObject({ header: sampleList, body: sampleList, footer: sampleList })
      .optional()
      .default({ header: [], body: [], footer: [] }),
  })
  .superRefine((input, ctx) => {
    const problem = (message: string, path: (string | number)[]) => ctx.addIssue({ code: 'custom', message, path });
    const texts = { HEADER: '', BODY: '', FOOTER: '' };
    for (const [i, c] of input.components.entries()) {
      if (input.components.findIndex((o) => o.type === c.type) !== i) {
        problem(`Componente ${c.type} repetido`, ['components', i]);
      }
      texts[c.type] = c.text.trim();
    }
    if (!texts.BODY) return problem(BODY_REQUIRED_MESSAGE, ['components']);
    const limits: Array<[keyof typeof texts, number, string]> = [
      ['HEADER', HEADER_MAX, 'encabezado'],
      ['BODY', BODY_MAX, 'cuerpo'],
      ['FOOTER', FOOTER_MAX, 'pie de página'],
    ];
    for (const [type, max, where] of limits) {
      if (texts[type].length > max) problem(`El ${where} admite hasta ${max} caracteres`, ['components']);
      const bad = texts[type] && placeholderProblem(texts[type], where);
      if (bad) problem(bad, ['components']);
    }
    // Meta's own rules, checked here so the operator sees them before a refused submission.
    if (placeholdersOf(texts.HEADER).length > 1) problem('El encabezado admite como máximo una variable', ['components']);
    if (placeholdersOf(texts.FOOTER).length > 0) problem('El pie de página no admite variables', ['components']);
    const samples = input.templateSamples;
    const needs: Array<[keyof typeof texts, string[], string]> = [
      ['HEADER', samples.header, 'encabezado'],
      ['BODY', samples.body, 'cuerpo'],
    ];
    for (const [type, list, where] of needs) {
      for (const n of placeholdersOf(texts[type])) {
        if (!list[n - 1]?.trim()) problem(`Falta el valor de ejemplo de {{${n}}} del ${where}`, ['templateSamples']);
      }
    }
  });
export type CreateTemplateInput = z.input<typeof createTemplateSchema>;

/** `success`/`message` tell whether Meta accepted the submission; `submission` repeats them (spec §7). */
export const createTemplateResponseSchema = z.object({
  success: z.boolean(),
  message: z.string(),
  submission: z.object({ success: z.boolean(), message: z.string() }),
  template: templateSchema,
});
export type CreateTemplateResponse = z.infer<typeof createTemplateResponseSchema>;

export const templateStatusSummarySchema = z.object({
  whatsapp_account_id: z.number(),
  total: z.number(),
  by_status: z.record(z.string(), z.number()),
  templates: z.array(
    z.object({ id: z.number(), name: z.string(), language: z.string(), status: z.string(), rejection_reason: z.string().nullable() }),
  ),
});
export type TemplateStatusSummary = z.infer<typeof templateStatusSummarySchema>;

export const kommoCustomFieldSchema = z.object({ id: z.number(), name: z.string(), type: z.string() });
