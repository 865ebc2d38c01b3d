import {
  CUSTOM_FIELD_PREFIX,
  isMapped,
  parseLocation,
  placeholdersOf,
  renderText,
  sortedPlaceholders,
  templateVariableSlots,
  type TemplateVariableSlot,
} from '@masivo/contract/variables';
import { LEAD_CUSTOM_FIELD_PREFIX, LEAD_FIELD_PREFIX, type LeadFields } from '@masivo/contract/automation-trigger';
import type { TemplateComponent } from '../../db/schema/whatsapp';
import type { MediaObject, SendComponent, SendParameter } from '../../integrations/whatsapp/messenger';
import { badRequest } from '../../lib/errors';

export type { SendComponent, SendParameter };

/**
 * Turning a template + its variable mappings + one contact into what Meta needs.
 *
 * Mapping keys (see @masivo/contract/variables): `variable_{n|name}` fills the body,
 * `header_variable_{n|name}` a TEXT header, `header_media` a media or location header,
 * `button_{index}` a URL suffix or coupon code. A mapping's sourceField is a built-in
 * contact field (name, first_name, last_name, phone, email) or `custom_fields.{field name}`.
 */
export { placeholdersOf, renderText };

export interface MappingLike {
  templateVariable: string;
  /** 'contact' (default) or 'static'. */
  sourceType?: string;
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
  /** An automatic campaign's lead (read at the event's due time): the `lead.*` fields. */
  lead?: LeadFields | null;
}

/** What a sender knows beyond the mappings: the campaign's uploaded media, its button payloads. */
export interface SendExtras {
  /** Media id of the header, uploaded once for the campaign; the link is sent when absent. */
  headerMediaId?: string | null;
  /** The payload of the quick reply at `index`; quick replies get no component without it. */
  quickReplyPayload?: (index: number) => string;
  /**
   * An explicit recipient's own values by mapping key (0039). A value given for a slot wins over
   * the mapping (and over the campaign's uploaded header media: `header_media` is sent as a link).
   */
  params?: Readonly<Record<string, string>> | null;
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
  // Lead fields exist only for an automatic campaign's recipients; elsewhere they are empty (the default applies).
  if (field.startsWith(LEAD_FIELD_PREFIX)) return leadFieldValue(contact.lead ?? null, field);
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

function leadFieldValue(lead: LeadFields | null, field: string): string {
  if (!lead) return '';
  if (field.startsWith(LEAD_CUSTOM_FIELD_PREFIX)) return stringOf(customField(lead, field.slice(LEAD_CUSTOM_FIELD_PREFIX.length)));
  if (field === 'lead.name') return stringOf(lead.name);
  if (field === 'lead.price') return lead.price === null || lead.price === undefined ? '' : String(lead.price);
  return '';
}

/** Own keys only: a field named `constructor` or `toString` must not reach Object's prototype. */
export function customField(contact: Pick<ContactLike, 'custom_fields'>, name: string): string | undefined {
  const fields = contact.custom_fields;
  return fields && Object.hasOwn(fields, name) ? fields[name] : undefined;
}

/** The text one mapping yields for one contact, already safe to send as a parameter. */
export function mappedValue(mapping: MappingLike, contact: ContactLike): string {
  const value = mapping.sourceType === 'static' ? '' : sanitizeParameter(contactFieldValue(contact, mapping.sourceField));
  if (value) return value;
  const fallback = sanitizeParameter(mapping.defaultValue ?? '');
  return fallback || LAST_RESORT;
}

/** A mapping gives a value when static with a value, or when it names a contact field (one rule, in the contract). */
export { isMapped };

/** Values by placeholder number for one component, for previews. */
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
    if (!isMapped(mapping)) missing.push(`{{${n}}}`);
    else values[n] = mappedValue(mapping!, contact);
  }
  if (missing.length) throw badRequest(`La plantilla tiene variables sin configurar: ${missing.join(', ')}`);
  return values;
}

const SUB_TYPE: Record<string, 'url' | 'copy_code'> = { url_suffix: 'url', coupon_code: 'copy_code' };

/**
 * The Graph `template.components` for one recipient, in the order and shapes of Meta's
 * Cloud API reference: header, body, then buttons by index (`index` as a string).
 */
export function buildSendComponents(
  template: { components: TemplateComponent[]; parameterFormat?: string | null },
  mappings: MappingLike[],
  contact: ContactLike,
  extras: SendExtras = {},
): SendComponent[] {
  const slots = templateVariableSlots(template.components, template.parameterFormat);
  const byKey = new Map(mappings.map((m) => [m.templateVariable, m]));
  // The recipient's own value for a slot, when it has one (only explicit recipients do).
  const params = extras.params;
  const own = (slot: TemplateVariableSlot): string | undefined => {
    const value = params && Object.hasOwn(params, slot.key) ? params[slot.key]!.trim() : '';
    return value || undefined;
  };
  // Readiness is checked before a campaign starts; this guards a mapping removed since.
  const missing = slots.filter((s) => !isMapped(byKey.get(s.key)) && !(s.kind === 'media' && extras.headerMediaId) && own(s) === undefined);
  if (missing.length) throw badRequest(`La plantilla tiene variables sin configurar: ${missing.map((s) => s.label).join(', ')}`);
  const valueOf = (slot: TemplateVariableSlot) => {
    const value = params ? own(slot) : undefined;
    return value !== undefined ? sanitizeParameter(value) || LAST_RESORT : mappedValue(byKey.get(slot.key)!, contact);
  };
  const rawOf = (slot: TemplateVariableSlot) => (params ? own(slot) : undefined) ?? rawValue(byKey.get(slot.key)!, contact);

  const out: SendComponent[] = [];
  for (const component of ['header', 'body'] as const) {
    const parameters: SendParameter[] = [];
    for (const slot of slots.filter((s) => s.component === component)) {
      if (slot.kind === 'media') {
        // A recipient's link replaces the campaign's uploaded header.
        const link = params ? own(slot) : undefined;
        const uploaded = link === undefined ? extras.headerMediaId : null;
        parameters.push(mediaParameter(slot.format!, uploaded ? null : (link ?? rawValue(byKey.get(slot.key)!, contact)), uploaded));
      } else if (slot.kind === 'location') parameters.push(locationParameter(rawOf(slot)));
      else parameters.push({ type: 'text', ...(slot.name !== undefined && { parameter_name: slot.name }), text: valueOf(slot) });
    }
    if (parameters.length) out.push({ type: component, parameters });
  }
  const buttons = (template.components.find((c) => c.type === 'BUTTONS')?.buttons ?? []) as Array<{ type?: string }>;
  buttons.forEach((button, index) => {
    const slot = slots.find((s) => s.component === 'button' && s.index === index);
    if (slot) {
      const value = valueOf(slot);
      const parameter: SendParameter = slot.kind === 'coupon_code' ? { type: 'coupon_code', coupon_code: value } : { type: 'text', text: value };
      out.push({ type: 'button', sub_type: SUB_TYPE[slot.kind]!, index: String(index), parameters: [parameter] });
    } else if (String(button?.type).toUpperCase() === 'QUICK_REPLY' && extras.quickReplyPayload) {
      out.push({ type: 'button', sub_type: 'quick_reply', index: String(index), parameters: [{ type: 'payload', payload: extras.quickReplyPayload(index) }] });
    }
  });
  return out;
}

/** A link or media id is used as written (no parameter clean-up: it is not shown text). */
function rawValue(mapping: MappingLike, contact: ContactLike): string {
  const value = mapping.sourceType === 'static' ? '' : contactFieldValue(contact, mapping.sourceField).trim();
  return value || mapping.defaultValue.trim();
}

/** A media id is digits only; anything else is a link. */
export const isMediaId = (value: string) => /^\d{1,30}$/.test(value);

function mediaParameter(format: string, value: string | null, uploadedId?: string | null): SendParameter {
  const ref: MediaObject = uploadedId ? { id: uploadedId } : isMediaId(value ?? '') ? { id: value! } : { link: value ?? '' };
  switch (format) {
    case 'VIDEO':
      return { type: 'video', video: ref };
    case 'DOCUMENT':
      return { type: 'document', document: { ...ref, filename: documentFilename(value) } };
    default:
      return { type: 'image', image: ref };
  }
}

/** The name WhatsApp shows for a document: the link's last path segment, else a default. */
export function documentFilename(link: string | null): string {
  try {
    const last = decodeURIComponent(new URL(link ?? '').pathname.split('/').pop() ?? '');
    if (/^[^\\/:*?"<>|\r\n]{1,200}\.[A-Za-z0-9]{2,5}$/.test(last)) return last;
  } catch {
    // not a link (a media id): the default name
  }
  return 'documento.pdf';
}

function locationParameter(value: string): SendParameter {
  const location = parseLocation(value);
  if (!location) throw badRequest('La ubicación del encabezado debe escribirse como latitud,longitud;nombre;dirección');
  return { type: 'location', location };
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
