import {
  CUSTOM_FIELD_PREFIX,
  isTextHeader,
  placeholdersOf,
  renderText,
  sortedPlaceholders,
  bodyVariableKey,
  headerVariableKey,
} from '@masivo/contract/variables';
import type { TemplateComponent } from '../../db/schema/whatsapp';
import { badRequest } from '../../lib/errors';

/**
 * Turning a template + its variable mappings + one contact into what Meta needs.
 *
 * Mapping keys: `variable_{n}` fills body `{{n}}`, `header_variable_{n}` fills `{{n}}` of a
 * TEXT header (see @masivo/contract/variables). A mapping's sourceField is a built-in contact
 * field (name, first_name, last_name, phone, email) or `custom_fields.{field name}`.
 */
export { placeholdersOf, renderText };

export interface MappingLike {
  templateVariable: string;
  sourceField: string;
  defaultValue: string;
}

export interface ContactLike {
  name: string;
  first_name: string;
  last_name: string;
  phone: string | null;
  email: string | null;
  custom_fields: Record<string, string>;
}

export interface SendComponent {
  type: 'header' | 'body';
  parameters: Array<{ type: 'text'; text: string }>;
}

/**
 * Meta refuses an empty text parameter (and one with new lines, tabs or more than four
 * spaces in a row), and one bad recipient must not fail a campaign, so an empty value falls
 * back to the mapping's default and, when that is empty too, to a single space: the message
 * still reads naturally ("Hola , …") instead of being rejected.
 */
const LAST_RESORT = ' ';
const MAX_PARAMETER_LENGTH = 1024;

/** The raw value of a contact field named by a mapping's sourceField. */
export function contactFieldValue(contact: ContactLike, sourceField: string): string {
  const field = sourceField.trim();
  if (field.startsWith(CUSTOM_FIELD_PREFIX)) return stringOf(customField(contact, field.slice(CUSTOM_FIELD_PREFIX.length)));
  switch (field) {
    case 'name':
      return stringOf(contact.name);
    case 'first_name':
      return stringOf(contact.first_name);
    case 'last_name':
      return stringOf(contact.last_name);
    case 'phone':
      return stringOf(contact.phone);
    case 'email':
      return stringOf(contact.email);
    default:
      // Tolerates a bare custom field name saved by hand.
      return stringOf(customField(contact, field));
  }
}

/** Own keys only: a field named `constructor` or `toString` must not reach Object's prototype. */
export function customField(contact: Pick<ContactLike, 'custom_fields'>, name: string): string | undefined {
  const fields = contact.custom_fields;
  return fields && Object.hasOwn(fields, name) ? fields[name] : undefined;
}

/** The text one mapping yields for one contact, already safe to send as a parameter. */
export function mappedValue(mapping: MappingLike, contact: ContactLike): string {
  const value = sanitizeParameter(contactFieldValue(contact, mapping.sourceField));
  if (value) return value;
  const fallback = sanitizeParameter(mapping.defaultValue ?? '');
  return fallback || LAST_RESORT;
}

/** Values by placeholder number for one component, for previews and for sending. */
export function componentValues(
  text: string | undefined,
  keyOf: (n: number) => string,
  mappings: MappingLike[],
  contact: ContactLike,
): Record<number, string> {
  const byKey = new Map(mappings.map((m) => [m.templateVariable, m]));
  const values: Record<number, string> = {};
  const missing: string[] = [];
  for (const n of sortedPlaceholders(text)) {
    const mapping = byKey.get(keyOf(n));
    if (!mapping || !mapping.sourceField.trim()) missing.push(`{{${n}}}`);
    else values[n] = mappedValue(mapping, contact);
  }
  // Readiness is checked before a campaign starts; this guards a mapping removed since.
  if (missing.length) throw badRequest(`La plantilla tiene variables sin configurar: ${missing.join(', ')}`);
  return values;
}

/** The Graph `template.components` for one recipient. */
export function buildSendComponents(
  template: { components: TemplateComponent[] },
  mappings: MappingLike[],
  contact: ContactLike,
): SendComponent[] {
  const out: SendComponent[] = [];
  const header = template.components.find(isTextHeader);
  if (header?.text && placeholdersOf(header.text).length) {
    const values = componentValues(header.text, headerVariableKey, mappings, contact);
    out.push({ type: 'header', parameters: toParameters(values) });
  }
  const body = template.components.find((c) => c.type === 'BODY');
  if (body?.text && placeholdersOf(body.text).length) {
    const values = componentValues(body.text, bodyVariableKey, mappings, contact);
    out.push({ type: 'body', parameters: toParameters(values) });
  }
  return out;
}

/** Positional parameters: entry i fills `{{i+1}}`, so gaps are filled too. */
function toParameters(values: Record<number, string>): Array<{ type: 'text'; text: string }> {
  const max = Math.max(0, ...Object.keys(values).map(Number));
  const params: Array<{ type: 'text'; text: string }> = [];
  for (let n = 1; n <= max; n++) params.push({ type: 'text', text: values[n] ?? LAST_RESORT });
  return params;
}

/** What Meta accepts in a text parameter: no new lines or tabs, at most four spaces in a row. */
export function sanitizeParameter(raw: string): string {
  return raw
    .replace(/[\r\n\t]+/g, ' ')
    .replace(/ {5,}/g, '    ')
    .trim()
    .slice(0, MAX_PARAMETER_LENGTH);
}

function stringOf(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(stringOf).filter(Boolean).join(', ');
  return String(value);
}
