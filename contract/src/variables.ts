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
  buttons?: unknown[];
}

export type SlotComponent = 'header' | 'body' | 'button';
export type SlotKind = 'text' | 'media' | 'location' | 'url_suffix' | 'coupon_code';

export interface TemplateVariableSlot {
  key: string;
  component: SlotComponent;
  /** `{{n}}` for positional placeholders; the 1-based position otherwise. */
  placeholder: number;
  /** Placeholder name of a NAMED template, absent for positional ones. */
  name?: string;
  kind: SlotKind;
  /** Header format of a media header (IMAGE, VIDEO, DOCUMENT, LOCATION). */
  format?: string;
  /** Meta's button index (position in BUTTONS, from 0). */
  index?: number;
  /** Used in messages and labels. */
  label: string;
}

export const isTextHeader = (c: TemplateComponentLike) =>
  c.type.toUpperCase() === 'HEADER' && (c.format ?? 'TEXT').toUpperCase() === 'TEXT';

/** `{{1}}` and `{{first_name}}` placeholders. */
export const ANY_PLACEHOLDER_PATTERN = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g;
/** What Meta accepts as a named parameter. */
export const NAMED_PARAMETER_PATTERN = /^[a-z][a-z0-9_]{0,59}$/;
export const MEDIA_HEADER_FORMATS = ['IMAGE', 'VIDEO', 'DOCUMENT'] as const;
export type MediaHeaderFormat = (typeof MEDIA_HEADER_FORMATS)[number];
export const HEADER_MEDIA_KEY = 'header_media';
export const buttonKey = (index: number) => `button_${index}`;

/** Placeholder names of a text (numbers as strings), once each, in order of first appearance. */
export function placeholderNamesOf(text: string | null | undefined): string[] {
  const seen: string[] = [];
  for (const match of (text ?? '').matchAll(ANY_PLACEHOLDER_PATTERN)) if (!seen.includes(match[1]!)) seen.push(match[1]!);
  return seen;
}

/** NAMED when Meta says so, or when any placeholder is not a number. */
export function isNamedTemplate(components: TemplateComponentLike[], parameterFormat?: string | null): boolean {
  if (parameterFormat) return parameterFormat.toUpperCase() === 'NAMED';
  return components.some((c) => placeholderNamesOf(c.text).some((n) => !/^\d+$/.test(n)));
}

const componentOf = (components: TemplateComponentLike[], type: string) => components.find((c) => c.type.toUpperCase() === type);
const headerFormat = (c: TemplateComponentLike | undefined) => (c?.format ?? 'TEXT').toUpperCase();

/** The placeholder names of a text in sending order: numbers ascending, names as written. */
function textSlots(text: string | undefined, named: boolean, component: 'header' | 'body'): TemplateVariableSlot[] {
  const prefix = component === 'header' ? 'header_variable_' : 'variable_';
  const suffix = component === 'header' ? ' (encabezado)' : '';
  if (named) {
    return placeholderNamesOf(text).map((name, i) => ({
      key: `${prefix}${name}`, component, placeholder: i + 1, name, kind: 'text', label: `{{${name}}}${suffix}`,
    }));
  }
  return sortedPlaceholders(text).map((n) => ({ key: `${prefix}${n}`, component, placeholder: n, kind: 'text', label: `{{${n}}}${suffix}` }));
}

interface ButtonLike {
  type?: string;
  url?: string;
}

/**
 * Every slot a template needs filled, in sending order: header (text placeholders, media or
 * location), body placeholders, then the dynamic part of each button that has one.
 */
export function templateVariableSlots(components: TemplateComponentLike[], parameterFormat?: string | null): TemplateVariableSlot[] {
  const named = isNamedTemplate(components, parameterFormat);
  const slots: TemplateVariableSlot[] = [];
  const header = componentOf(components, 'HEADER');
  const format = headerFormat(header);
  if (header && format === 'TEXT') slots.push(...textSlots(header.text, named, 'header'));
  else if (header && ((MEDIA_HEADER_FORMATS as readonly string[]).includes(format) || format === 'LOCATION')) {
    const label = { IMAGE: 'Imagen del encabezado', VIDEO: 'Video del encabezado', DOCUMENT: 'Documento del encabezado', LOCATION: 'Ubicación del encabezado' }[format]!;
    slots.push({ key: HEADER_MEDIA_KEY, component: 'header', placeholder: 1, kind: format === 'LOCATION' ? 'location' : 'media', format, label });
  }
  slots.push(...textSlots(componentOf(components, 'BODY')?.text, named, 'body'));
  const buttons = (componentOf(components, 'BUTTONS')?.buttons ?? []) as ButtonLike[];
  buttons.forEach((b, index) => {
    const type = String(b?.type ?? '').toUpperCase();
    if (type === 'URL' && placeholderNamesOf(b.url).length > 0) {
      slots.push({ key: buttonKey(index), component: 'button', placeholder: index + 1, kind: 'url_suffix', index, label: `Botón ${index + 1} (final de la URL)` });
    } else if (type === 'COPY_CODE') {
      slots.push({ key: buttonKey(index), component: 'button', placeholder: index + 1, kind: 'coupon_code', index, label: `Botón ${index + 1} (código de cupón)` });
    }
  });
  return slots;
}

/** A saved mapping as the server stores it and the dialog sends it; `sourceType` absent means 'contact'. */
export interface MappingValueSource {
  templateVariable: string;
  sourceType?: string;
  sourceField: string;
  defaultValue: string;
}

/**
 * A mapping gives every message a value: a fixed one ('static') when it has its text, a
 * contact's field ('contact') when it names one (its default covers an empty field). A fixed
 * value has no field, so its empty `sourceField` says nothing about it.
 */
export const isMapped = (m: MappingValueSource | undefined): boolean =>
  !!m && (m.sourceType === 'static' ? m.defaultValue.trim() !== '' : m.sourceField.trim() !== '');

/**
 * The slots no mapping fills, in sending order: the one rule by which the server refuses a
 * template for a campaign and the console's template select disables it.
 */
export function unmappedSlots<S extends { key: string }>(slots: S[], mappings: MappingValueSource[]): S[] {
  const mapped = new Set(mappings.filter((m) => isMapped(m)).map((m) => m.templateVariable));
  return slots.filter((s) => !mapped.has(s.key));
}

/**
 * Why a template cannot be sent by a campaign, in Spanish, or null when it can. Carousels
 * and limited-time offers need per-card media and expiry data the mapping shape has no
 * place for, so they are synced and shown but not offered.
 */
export function campaignIncompatibility(components: TemplateComponentLike[]): string | null {
  const types = components.map((c) => c.type.toUpperCase());
  if (types.includes('CAROUSEL')) return 'No compatible con campañas: las plantillas de carrusel todavía no se pueden enviar';
  if (types.includes('LIMITED_TIME_OFFER')) return 'No compatible con campañas: las ofertas por tiempo limitado todavía no se pueden enviar';
  const format = headerFormat(componentOf(components, 'HEADER'));
  if (format === 'GIF') return 'No compatible con campañas: los encabezados GIF todavía no se pueden enviar';
  const buttons = (componentOf(components, 'BUTTONS')?.buttons ?? []) as ButtonLike[];
  const other = buttons.find((b) => !['URL', 'QUICK_REPLY', 'PHONE_NUMBER', 'COPY_CODE'].includes(String(b?.type ?? '').toUpperCase()));
  if (other) return `No compatible con campañas: los botones de tipo ${String(other.type)} todavía no se pueden enviar`;
  return null;
}

/** Meta's media rules for a header link: accepted content types and size limit per format. */
export const MEDIA_RULES: Record<MediaHeaderFormat, { types: string[]; maxBytes: number; label: string }> = {
  IMAGE: { types: ['image/jpeg', 'image/png'], maxBytes: 5 * 1024 * 1024, label: 'imagen (JPEG o PNG, hasta 5 MB)' },
  VIDEO: { types: ['video/mp4', 'video/3gpp'], maxBytes: 16 * 1024 * 1024, label: 'video (MP4 o 3GPP, hasta 16 MB)' },
  DOCUMENT: { types: ['application/pdf'], maxBytes: 100 * 1024 * 1024, label: 'documento (PDF, hasta 100 MB)' },
};

/** `lat,lng` optionally followed by `;name;address`: how a location header's value is written. */
export function parseLocation(value: string): { latitude: string; longitude: string; name?: string; address?: string } | null {
  const [coords = '', name, address] = value.split(';').map((p) => p.trim());
  const m = /^(-?\d{1,2}(?:\.\d+)?)\s*,\s*(-?\d{1,3}(?:\.\d+)?)$/.exec(coords);
  if (!m) return null;
  const lat = Number(m[1]);
  const lng = Number(m[2]);
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) return null;
  return { latitude: m[1]!, longitude: m[2]!, ...(name ? { name } : {}), ...(address ? { address } : {}) };
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
  category: z.enum(['contact', 'custom', 'lead']),
  description: z.string(),
});
export type AvailableVariable = z.infer<typeof availableVariableSchema>;

/** The contact's own fields every template can use: the server lists them, the web falls back to them. */
export const BUILT_IN_VARIABLES: AvailableVariable[] = [
  { key: 'name', displayName: 'Nombre completo', category: 'contact', description: 'Nombre completo del contacto' },
  { key: 'first_name', displayName: 'Nombre', category: 'contact', description: 'Nombre del contacto' },
  { key: 'last_name', displayName: 'Apellido', category: 'contact', description: 'Apellido del contacto' },
  { key: 'phone', displayName: 'Teléfono', category: 'contact', description: 'Teléfono del contacto' },
  { key: 'email', displayName: 'Email', category: 'contact', description: 'Email del contacto' },
];

/**
 * An automatic campaign's lead (read from Kommo at the event's due time); custom fields of the
 * lead as `lead.custom_fields.{nombre}`. In any other campaign they are empty and the default applies.
 */
export const LEAD_VARIABLES: AvailableVariable[] = [
  { key: 'lead.name', displayName: 'Nombre del lead', category: 'lead', description: 'Nombre del lead de Kommo (campañas automáticas)' },
  { key: 'lead.price', displayName: 'Presupuesto del lead', category: 'lead', description: 'Presupuesto (precio) del lead de Kommo (campañas automáticas)' },
];

export const variableMappingSchema = z.object({
  templateVariable: z.string(),
  sourceType: z.string(),
  sourceField: z.string(),
  defaultValue: z.string(),
});
export type VariableMapping = z.infer<typeof variableMappingSchema>;

/** The mapping keys: numbered or named placeholders, the header media, a button's dynamic part. */
export const MAPPING_KEY_PATTERN = /^(?:(?:header_)?variable_(?:\d{1,3}|[a-z][a-z0-9_]{0,59})|header_media|button_\d{1,2})$/;
export const MAPPING_KEY_MESSAGE =
  'Variable inválida: use variable_{n}, variable_{nombre}, header_variable_{n}, header_variable_{nombre}, header_media o button_{n} (los nombres solo admiten minúsculas, números y guiones bajos, y empiezan con una letra)';

const variableKey = z.string().trim().regex(MAPPING_KEY_PATTERN, MAPPING_KEY_MESSAGE);

export const SOURCE_TYPES = ['contact', 'static'] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];

export const saveMappingsSchema = z.strictObject({
  mappings: z
    .array(
      z
        .strictObject({
          templateVariable: variableKey,
          /** 'contact': the contact's sourceField, else defaultValue; 'static': always defaultValue. */
          sourceType: z.enum(SOURCE_TYPES, { error: 'sourceType debe ser contact o static' }).optional().default('contact'),
          sourceField: z.string().trim().max(300).optional().default(''),
          defaultValue: z.string().trim().max(1024).optional().default(''),
        })
        .superRefine((m, ctx) => {
          if (m.sourceType === 'contact' && !m.sourceField) {
            ctx.addIssue({ code: 'custom', message: `Selecciona un campo para ${m.templateVariable}`, path: ['sourceField'] });
          }
          if (m.sourceType === 'static' && !m.defaultValue) {
            ctx.addIssue({ code: 'custom', message: `Escribe un valor fijo para ${m.templateVariable}`, path: ['defaultValue'] });
          }
        }),
    )
    .max(200),
  /** Quick-reply buttons (Meta's index) marked «Baja»: tapping one blacklists the number. */
  optOutButtons: z
    .array(z.number({ error: 'Botón de baja inválido' }).int('Botón de baja inválido').min(0, 'Botón de baja inválido').max(9, 'Botón de baja inválido'))
    .max(10)
    .optional()
    .default([]),
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
  /** A media or location header: its format and the link (or media id) it would carry. */
  headerMedia: z.object({ format: z.string(), value: z.string().nullable() }).nullable(),
  /** Buttons as WhatsApp shows them; `value` is the full URL, the phone or the coupon code. */
  buttons: z.array(z.object({ type: z.string(), text: z.string(), value: z.string().nullable() })),
});
export type PreviewResponse = z.infer<typeof previewResponseSchema>;

export const testMappingSchema = z.strictObject({ contactId: idSchema });
export const testMappingResponseSchema = previewResponseSchema.extend({
  contactId: z.number(),
  values: z.record(z.string(), z.string()),
});
export type TestMappingResponse = z.infer<typeof testMappingResponseSchema>;

export const templateSlotSchema = z.object({
  key: z.string(),
  component: z.enum(['header', 'body', 'button']),
  placeholder: z.number(),
  name: z.string().optional(),
  kind: z.enum(['text', 'media', 'location', 'url_suffix', 'coupon_code']),
  format: z.string().optional(),
  index: z.number().optional(),
  label: z.string(),
});

export const templateVariablesResponseSchema = z.object({
  templateId: z.number(),
  variables: z.array(templateSlotSchema),
  /** Null when a campaign can send the template; the Spanish reason otherwise. */
  incompatibleReason: z.string().nullable(),
  availableVariables: z.array(availableVariableSchema),
  mappings: z.array(variableMappingSchema),
  /** Quick-reply buttons (Meta's index) whose tap puts the number on the blacklist. */
  optOutButtons: z.array(z.number()),
});
export type TemplateVariablesResponse = z.infer<typeof templateVariablesResponseSchema>;
