import { z } from 'zod';
import { idSchema } from './common';
import { TTL_ONLY_MARKETING_MESSAGE, ttlSecondsSchema } from './marketing-messages';
import { NAMED_PARAMETER_PATTERN, placeholderNamesOf, placeholdersOf } from './variables';

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

/** Loose: carousel cards, limited-time offers and later additions reach the screen as Meta sent them. */
export const templateComponentSchema = z.looseObject({
  type: z.string(),
  format: z.string().optional(),
  text: z.string().optional(),
  example: z.unknown().optional(),
  buttons: z.array(z.unknown()).optional(),
});
export type TemplateComponentView = z.infer<typeof templateComponentSchema>;

/** `template_category_update` as stored: impending (`to` at `at`) or completed (`from` → `to`). */
export const templateCategoryChangeSchema = z.object({
  kind: z.enum(['impending', 'completed']),
  from: z.string().nullable(),
  to: z.string(),
  at: z.string().nullable(),
});
export type TemplateCategoryChange = z.infer<typeof templateCategoryChangeSchema>;

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
  /** POSITIONAL ({{1}}) or NAMED ({{first_name}}), as Meta reports it. */
  parameter_format: z.string(),
  /** Meta's quality score (GREEN, YELLOW, RED, UNKNOWN) when Meta sent one. */
  quality_score: z.string().nullable(),
  /** Detail of Meta's last status event: FIRST_PAUSE, SECOND_PAUSE (paused), FLAGGED. */
  status_detail: z.string().nullable(),
  /** A category change Meta announced (impending) or made (completed). */
  category_change: templateCategoryChangeSchema.nullable(),
  /** `message_send_ttl_seconds` (marketing: 12 h to 30 days); null: Meta's default. */
  message_send_ttl_seconds: z.number().nullable().optional(),
  /** False for templates a campaign cannot send (carousel, limited-time offer, ...). */
  campaign_compatible: z.boolean(),
  /** "No compatible con campañas: ..." when campaign_compatible is false. */
  incompatible_reason: z.string().nullable(),
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

/** Meta's limits for a template's BUTTONS component. */
export const BUTTON_LIMITS = { total: 10, QUICK_REPLY: 10, URL: 2, PHONE_NUMBER: 1, COPY_CODE: 1 } as const;
export const BUTTON_TEXT_MAX = 25;
export const COUPON_CODE_MAX = 15;
export const BUTTON_TYPES = ['QUICK_REPLY', 'URL', 'PHONE_NUMBER', 'COPY_CODE'] as const;
export type ButtonType = (typeof BUTTON_TYPES)[number];
export const HEADER_FORMATS = ['TEXT', 'IMAGE', 'VIDEO', 'DOCUMENT'] as const;
export const PARAMETER_FORMATS = ['POSITIONAL', 'NAMED'] as const;
/** A URL button's only dynamic part: `{{1}}` at the very end. */
export const URL_SUFFIX_PLACEHOLDER = '{{1}}';

const buttonText = z.string().trim().max(100).optional().default('');
const buttonInput = z.discriminatedUnion(
  'type',
  [
    z.strictObject({ type: z.literal('QUICK_REPLY'), text: buttonText }),
    z.strictObject({
      type: z.literal('URL'),
      text: buttonText,
      url: z.string().trim().max(2000, 'La URL de un botón admite hasta 2000 caracteres').optional().default(''),
      /** The sample of the `{{1}}` suffix; the full example URL is built from it. */
      example: z.string().trim().max(200).optional().default(''),
    }),
    z.strictObject({ type: z.literal('PHONE_NUMBER'), text: buttonText, phone_number: z.string().trim().max(30).optional().default('') }),
    z.strictObject({ type: z.literal('COPY_CODE'), example: z.string().trim().max(100).optional().default('') }),
  ],
  { error: 'Tipo de botón inválido (QUICK_REPLY, URL, PHONE_NUMBER o COPY_CODE)' },
);
export type TemplateButtonInput = z.input<typeof buttonInput>;

const componentInput = z.strictObject({
  type: z.enum(['HEADER', 'BODY', 'FOOTER', 'BUTTONS'], { error: 'Tipo de componente inválido' }),
  format: z.enum(HEADER_FORMATS, { error: 'Formato de encabezado inválido (TEXT, IMAGE, VIDEO o DOCUMENT)' }).optional(),
  text: z.string().optional().default(''),
  /** The Resumable Upload handle of a media header's sample (`POST /api/templates/media-sample`). */
  header_handle: z
    .string()
    .trim()
    .max(1000)
    .regex(/^[\x21-\x7e]*$/, 'Identificador de archivo de ejemplo inválido')
    .optional(),
  buttons: z.array(buttonInput).max(20, 'Una plantilla admite hasta 10 botones').optional(),
});

/** What a NAMED placeholder problem is called, or null: Meta accepts lowercase, digits and underscores. */
function namedPlaceholderProblem(text: string, where: string): string | null {
  for (const match of text.matchAll(/\{\{([^{}]*)\}\}/g)) {
    const name = match[1]!.trim();
    if (/^\d+$/.test(name)) return `Con variables con nombre, el ${where} debe usar {{nombre}} en lugar de {{${name}}}`;
    if (!NAMED_PARAMETER_PATTERN.test(name)) {
      return `La variable {{${name}}} del ${where} no es válida: use minúsculas, números y guiones bajos, empezando con una letra`;
    }
  }
  const malformed = text.replace(/\{\{[^{}]*\}\}/g, '').match(/\{\{|\}\}/);
  return malformed ? `El ${where} tiene llaves dobles que no son una variable válida ({{nombre}})` : null;
}

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
    /** POSITIONAL ({{1}}) or NAMED ({{first_name}}), chosen per template. */
    parameter_format: z.enum(PARAMETER_FORMATS, { error: 'Formato de variables inválido (POSITIONAL o NAMED)' }).optional().default('POSITIONAL'),
    components: z.array(componentInput).min(1, BODY_REQUIRED_MESSAGE).max(4),
    /** Time-to-live of a MARKETING template (Marketing Messages API), 12 h to 30 days. */
    message_send_ttl_seconds: z.union([ttlSecondsSchema, z.null()]).optional(),
    templateSamples: z
      .strictObject({ header: sampleList, body: sampleList, footer: sampleList })
      .optional()
      .default({ header: [], body: [], footer: [] }),
  })
  .superRefine((input, ctx) => {
    const problem = (message: string, path: (string | number)[]) => ctx.addIssue({ code: 'custom', message, path });
    const named = input.parameter_format === 'NAMED';
    if (input.message_send_ttl_seconds != null && input.category !== 'marketing') problem(TTL_ONLY_MARKETING_MESSAGE, ['message_send_ttl_seconds']);
    const texts = { HEADER: '', BODY: '', FOOTER: '' };
    for (const [i, c] of input.components.entries()) {
      if (input.components.findIndex((o) => o.type === c.type) !== i) {
        problem(`Componente ${c.type} repetido`, ['components', i]);
      }
      if (c.type !== 'BUTTONS') texts[c.type] = c.text.trim();
      if (c.format && c.type !== 'HEADER') problem('Solo el encabezado tiene formato', ['components', i, 'format']);
      if (c.header_handle !== undefined && c.type !== 'HEADER') problem('Solo el encabezado lleva un archivo de ejemplo', ['components', i]);
      if (c.buttons && c.type !== 'BUTTONS') problem('Los botones van en el componente BUTTONS', ['components', i]);
    }
    if (!texts.BODY) return problem(BODY_REQUIRED_MESSAGE, ['components']);
    const header = input.components.find((c) => c.type === 'HEADER');
    const format = header?.format ?? 'TEXT';
    if (header && format !== 'TEXT') {
      if (texts.HEADER) problem('Un encabezado con archivo no lleva texto', ['components']);
      if (!header.header_handle) problem('Sube un archivo de ejemplo para el encabezado', ['components']);
      texts.HEADER = '';
    } else if (header?.header_handle) problem('Un encabezado de texto no lleva archivo de ejemplo', ['components']);
    const limits: Array<[keyof typeof texts, number, string]> = [
      ['HEADER', HEADER_MAX, 'encabezado'],
      ['BODY', BODY_MAX, 'cuerpo'],
      ['FOOTER', FOOTER_MAX, 'pie de página'],
    ];
    for (const [type, max, where] of limits) {
      if (texts[type].length > max) problem(`El ${where} admite hasta ${max} caracteres`, ['components']);
      const bad = texts[type] && type !== 'FOOTER' && (named ? namedPlaceholderProblem(texts[type], where) : placeholderProblem(texts[type], where));
      if (bad) problem(bad, ['components']);
    }
    // Meta's own rules, checked here so the operator sees them before a refused submission.
    if (placeholderNamesOf(texts.HEADER).length > 1) problem('El encabezado admite como máximo una variable', ['components']);
    if (placeholderNamesOf(texts.FOOTER).length > 0 || /\{\{|\}\}/.test(texts.FOOTER)) problem('El pie de página no admite variables', ['components']);
    const samples = input.templateSamples;
    const needs: Array<[keyof typeof texts, string[], string]> = [
      ['HEADER', samples.header, 'encabezado'],
      ['BODY', samples.body, 'cuerpo'],
    ];
    for (const [type, list, where] of needs) {
      // Samples follow the placeholders: by number when positional, in order of appearance when named.
      const names = named ? placeholderNamesOf(texts[type]) : placeholdersOf(texts[type]).map(String);
      names.forEach((name, i) => {
        const sample = named ? list[i] : list[Number(name) - 1];
        if (!sample?.trim()) problem(`Falta el valor de ejemplo de {{${name}}} del ${where}`, ['templateSamples']);
      });
    }
    const buttonsComponent = input.components.find((c) => c.type === 'BUTTONS');
    if (buttonsComponent) for (const message of buttonProblems(buttonsComponent.buttons ?? [])) problem(message, ['components']);
  });

/** Meta's button rules, in Spanish, for the dialog and the API alike. */
export function buttonProblems(buttons: Array<z.output<typeof buttonInput>>): string[] {
  const problems: string[] = [];
  if (buttons.length === 0) problems.push('Agrega al menos un botón o quita la sección de botones');
  if (buttons.length > BUTTON_LIMITS.total) problems.push(`Una plantilla admite hasta ${BUTTON_LIMITS.total} botones`);
  const count = (type: ButtonType) => buttons.filter((b) => b.type === type).length;
  if (count('QUICK_REPLY') > BUTTON_LIMITS.QUICK_REPLY) problems.push(`Una plantilla admite hasta ${BUTTON_LIMITS.QUICK_REPLY} respuestas rápidas`);
  if (count('URL') > BUTTON_LIMITS.URL) problems.push(`Una plantilla admite como máximo ${BUTTON_LIMITS.URL} botones de enlace (URL)`);
  if (count('PHONE_NUMBER') > BUTTON_LIMITS.PHONE_NUMBER) problems.push('Una plantilla admite como máximo 1 botón de llamada');
  if (count('COPY_CODE') > BUTTON_LIMITS.COPY_CODE) problems.push('Una plantilla admite como máximo 1 botón de copiar código');
  // Meta shows quick replies apart from the call-to-action buttons, so they must be contiguous.
  const quick = buttons.map((b) => b.type === 'QUICK_REPLY');
  if (quick.filter((q, i) => i > 0 && q !== quick[i - 1]).length > 1) {
    problems.push('Las respuestas rápidas deben ir juntas, antes o después de los demás botones');
  }
  buttons.forEach((b, i) => {
    const n = i + 1;
    if (b.type !== 'COPY_CODE') {
      if (!b.text) problems.push(`El texto del botón ${n} es requerido`);
      else if (b.text.length > BUTTON_TEXT_MAX) problems.push(`El texto del botón ${n} admite hasta ${BUTTON_TEXT_MAX} caracteres`);
    }
    if (b.type === 'URL') {
      if (!/^https:\/\/[^\s/$.?#][^\s]*$/i.test(b.url)) problems.push(`La URL del botón ${n} debe ser un enlace https:// válido`);
      const rest = b.url.endsWith(URL_SUFFIX_PLACEHOLDER) ? b.url.slice(0, -URL_SUFFIX_PLACEHOLDER.length) : b.url;
      if (/\{\{|\}\}/.test(rest)) problems.push(`La URL del botón ${n} solo admite la variable {{1}} al final`);
      if (b.url.endsWith(URL_SUFFIX_PLACEHOLDER) && !b.example) problems.push(`Falta el valor de ejemplo del final de la URL del botón ${n}`);
      if (/\s/.test(b.example)) problems.push(`El ejemplo de la URL del botón ${n} no admite espacios`);
    }
    if (b.type === 'PHONE_NUMBER' && !/^\+?[1-9]\d{6,19}$/.test(b.phone_number.replace(/[\s-]/g, ''))) {
      problems.push(`El teléfono del botón ${n} debe estar en formato internacional (ej: +5491112345678)`);
    }
    if (b.type === 'COPY_CODE') {
      if (!b.example) problems.push(`El código de ejemplo del botón ${n} es requerido`);
      else if (b.example.length > COUPON_CODE_MAX) problems.push(`El código del botón ${n} admite hasta ${COUPON_CODE_MAX} caracteres`);
      else if (!/^[A-Za-z0-9]+$/.test(b.example)) problems.push(`El código del botón ${n} solo admite letras y números`);
    }
  });
  return problems;
}
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

/**
 * A media header's sample goes to Meta through the Resumable Upload API; the raw bytes are the
 * request body and their type its Content-Type. Samples only need to show the reviewer the kind
 * of file, so they are capped below Meta's send limits.
 */
export const MEDIA_SAMPLE_MAX_BYTES = 16 * 1024 * 1024;
export const MEDIA_SAMPLE_TYPES: Record<Exclude<(typeof HEADER_FORMATS)[number], 'TEXT'>, string[]> = {
  IMAGE: ['image/jpeg', 'image/png'],
  VIDEO: ['video/mp4', 'video/3gpp'],
  DOCUMENT: ['application/pdf'],
};
export const mediaSampleQuerySchema = z.strictObject({
  whatsapp_account_id: idSchema,
  format: z.enum(['IMAGE', 'VIDEO', 'DOCUMENT'], { error: 'Formato de encabezado inválido (IMAGE, VIDEO o DOCUMENT)' }),
});
export const mediaSampleResponseSchema = z.object({ handle: z.string() });
export type MediaSampleResponse = z.infer<typeof mediaSampleResponseSchema>;
