// Message templates per WABA: create-time validation with Meta's error subcodes, delayed review
// (PENDING -> APPROVED / REJECTED), cursor-paged listing and deletion.
import { templateError, type GraphError } from './errors';
import { hasAdjacentPlaceholders, placeholders, startsOrEndsWithPlaceholder, wordsOutsidePlaceholders } from './placeholders';
import type { TemplateCategory, TemplateInput } from './types';

export interface Template {
  id: string;
  wabaId: string;
  name: string;
  language: string;
  category: TemplateCategory;
  status: string;
  components: any[];
  parameter_format: 'POSITIONAL' | 'NAMED';
  rejected_reason: string;
  quality_score: { score: string; date?: number };
}

const CATEGORIES: readonly TemplateCategory[] = ['MARKETING', 'UTILITY', 'AUTHENTICATION'];
const NAME = /^[a-z0-9_]{1,512}$/;
const LANGUAGE = /^[a-z]{2,3}(_[A-Z]{2})?$/;
const MAX_TEMPLATES_PER_WABA = 250;
const LIMITS = { HEADER: 60, BODY: 1024, FOOTER: 60 } as const;

export const TEMPLATE_FIELDS = ['id', 'name', 'language', 'status', 'category', 'parameter_format', 'components', 'rejected_reason', 'quality_score'] as const;

/** Meta's button limits per type, and in all. */
const BUTTON_LIMITS: Record<string, number> = { QUICK_REPLY: 10, URL: 2, PHONE_NUMBER: 1, COPY_CODE: 1, FLOW: 1, OTP: 1, CATALOG: 1, MPM: 1 };

let nextTemplateId = 1_600_000_000_000_000 + Math.floor(Math.random() * 1_000_000) * 1_000;

function upperType(c: any): string {
  return typeof c?.type === 'string' ? c.type.toUpperCase() : '';
}

export function componentOf(t: { components: any[] }, type: 'HEADER' | 'BODY' | 'FOOTER' | 'BUTTONS' | 'CAROUSEL'): any | undefined {
  return t.components.find((c) => upperType(c) === type);
}

export function isRejectedByReview(t: Template, rejectMatching: RegExp | null): boolean {
  if (rejectMatching && rejectMatching.test(t.name)) return true;
  return t.components.some((c) => hasAdjacentPlaceholders(c?.text));
}

export class TemplateStore {
  private byWaba = new Map<string, Template[]>();

  list(wabaId: string): Template[] {
    return this.byWaba.get(wabaId) ?? [];
  }

  add(input: TemplateInput): Template {
    const t: Template = {
      id: String(nextTemplateId++),
      wabaId: input.wabaId,
      name: input.name,
      language: input.language,
      category: String(input.category).toUpperCase() as TemplateCategory,
      status: input.status ?? 'APPROVED',
      components: input.components ?? [],
      parameter_format: input.parameter_format ?? (this.looksNamed(input.components) ? 'NAMED' : 'POSITIONAL'),
      rejected_reason: 'NONE',
      quality_score: input.quality_score ?? { score: 'UNKNOWN' },
    };
    const list = this.byWaba.get(t.wabaId) ?? [];
    list.push(t);
    this.byWaba.set(t.wabaId, list);
    return t;
  }

  byId(id: string): Template | undefined {
    for (const list of this.byWaba.values()) {
      const t = list.find((x) => x.id === id);
      if (t) return t;
    }
    return undefined;
  }

  find(wabaId: string, name: string, language: string): Template | undefined {
    return this.list(wabaId).find((t) => t.name === name && t.language === language);
  }

  /** Deletes by name (every language) or by name + hsm_id. Returns how many were removed. */
  delete(wabaId: string, name: string, hsmId?: string): number {
    const list = this.list(wabaId);
    const keep = list.filter((t) => !(t.name === name && (hsmId === undefined || t.id === hsmId)));
    this.byWaba.set(wabaId, keep);
    return list.length - keep.length;
  }

  private looksNamed(components: any[] | undefined): boolean {
    return (components ?? []).some((c) => placeholders(c?.text).some((p) => !/^\d+$/.test(p)));
  }

  /** Validates a POST /{waba}/message_templates body; returns the error Meta would give, if any. */
  validateCreate(wabaId: string, body: any): GraphError | null {
    if (!body || typeof body !== 'object') return templateError(null, 'Invalid parameter', 'The request body must be a JSON object.');
    const { name, language, category, components } = body;
    if (typeof name !== 'string' || !NAME.test(name)) {
      return templateError(null, 'Invalid parameter', 'Template name can only contain lowercase letters, numbers and underscores.');
    }
    if (typeof language !== 'string' || !LANGUAGE.test(language)) return templateError(null, 'Invalid parameter', 'Invalid language code.');
    if (typeof category !== 'string' || !CATEGORIES.includes(category.toUpperCase() as TemplateCategory)) {
      return templateError(null, 'Invalid parameter', `Category must be one of ${CATEGORIES.join(', ')}.`);
    }
    if (!Array.isArray(components)) return templateError(null, 'Invalid parameter', 'components is required.');
    const named = body.parameter_format === 'NAMED';
    if (!components.some((c) => upperType(c) === 'BODY')) {
      return templateError(2388072, 'Invalid body format', 'The body component is required.');
    }
    for (const c of components) {
      const error = validateComponent(c, named);
      if (error) return error;
    }
    const list = this.list(wabaId);
    if (list.some((t) => t.name === name && t.language === language)) {
      return templateError(2388024, 'Content in this language already exists', `A template named ${name} already exists in ${language}.`);
    }
    if (list.length >= MAX_TEMPLATES_PER_WABA) {
      return templateError(2388019, 'Message template limit exceeded', `This WhatsApp Business Account already has ${MAX_TEMPLATES_PER_WABA} templates.`);
    }
    return null;
  }
}

function validateComponent(c: any, named: boolean): GraphError | null {
  const type = upperType(c);
  if (type === 'BUTTONS') return validateButtons(Array.isArray(c.buttons) ? c.buttons : []);
  // Sent as Meta documents them; the simulator does not review their cards or offer text.
  if (type === 'CAROUSEL') return Array.isArray(c.cards) && c.cards.length > 0 ? null : templateError(null, 'Invalid carousel', 'A carousel needs cards.');
  if (type === 'LIMITED_TIME_OFFER') return c.limited_time_offer ? null : templateError(null, 'Invalid parameter', 'limited_time_offer is required.');
  if (type !== 'HEADER' && type !== 'BODY' && type !== 'FOOTER') {
    return templateError(null, 'Invalid parameter', `Unknown component type ${String(c?.type)}.`);
  }
  const format = type === 'HEADER' ? String(c.format ?? 'TEXT').toUpperCase() : 'TEXT';
  if (format !== 'TEXT') {
    if (!['IMAGE', 'VIDEO', 'GIF', 'DOCUMENT', 'LOCATION'].includes(format)) {
      return templateError(2388047, 'Invalid header format', `Unknown header format ${format}.`);
    }
    if (format !== 'LOCATION' && !c.example?.header_handle) {
      return templateError(2388047, 'Invalid header format', 'A media header needs example.header_handle.');
    }
    return null;
  }
  const text = c.text;
  if (typeof text !== 'string' || text.trim() === '') {
    return templateError(type === 'HEADER' ? 2388047 : type === 'BODY' ? 2388072 : 2388073, `Invalid ${type.toLowerCase()} format`, `The ${type.toLowerCase()} text is required.`);
  }
  const max = LIMITS[type];
  if (text.length > max) {
    return templateError(2388040, 'Character limit exceeded', `The ${type.toLowerCase()} text can have at most ${max} characters.`);
  }
  const params = placeholders(text);
  if (type === 'FOOTER') {
    return params.length > 0 ? templateError(2388073, 'Invalid footer format', 'The footer cannot contain variables.') : null;
  }
  const subcode = type === 'HEADER' ? 2388047 : 2388072;
  const title = `Invalid ${type.toLowerCase()} format`;
  if (type === 'HEADER' && params.length > 1) return templateError(subcode, title, 'The header can contain at most one variable.');
  if (params.length === 0) return null;
  if (named) {
    if (params.some((p) => !/^[a-z][a-z0-9_]*$/.test(p))) return templateError(subcode, title, 'Named variables must be lowercase letters, numbers and underscores.');
  } else {
    const numbers = params.map(Number);
    const sorted = [...numbers].sort((a, b) => a - b);
    if (numbers.some((n) => !Number.isInteger(n)) || sorted.some((n, i) => n !== i + 1)) {
      return templateError(subcode, title, 'Variables must be numbered consecutively: {{1}}, {{2}}, ...');
    }
  }
  const example = type === 'HEADER'
    ? (named ? c.example?.header_text_named_params : c.example?.header_text)
    : (named ? c.example?.body_text_named_params : c.example?.body_text?.[0]);
  if (!Array.isArray(example) || example.length < params.length) {
    return templateError(subcode, title, `Example values are required for the ${params.length} variable(s) in the ${type.toLowerCase()}.`);
  }
  if (type === 'BODY') {
    if (startsOrEndsWithPlaceholder(text)) {
      return templateError(2388299, 'Variables can\'t be at the start or end of the template', 'The body cannot start or end with a variable.');
    }
    if (wordsOutsidePlaceholders(text) < params.length) {
      return templateError(2388293, 'Too many variables for the message length', 'This template has too many variables for its length.');
    }
  }
  return null;
}

function validateButtons(buttons: any[]): GraphError | null {
  const invalid = (msg: string) => templateError(null, 'Invalid buttons', msg);
  if (buttons.length === 0 || buttons.length > 10) return invalid('A BUTTONS component needs 1 to 10 buttons.');
  const counts = new Map<string, number>();
  for (const b of buttons) {
    const type = String(b?.type ?? '').toUpperCase();
    if (!(type in BUTTON_LIMITS)) return invalid(`Unknown button type ${String(b?.type)}.`);
    counts.set(type, (counts.get(type) ?? 0) + 1);
    if (counts.get(type)! > BUTTON_LIMITS[type]!) return invalid(`At most ${BUTTON_LIMITS[type]} buttons of type ${type}.`);
    if (type !== 'COPY_CODE' && type !== 'OTP' && (typeof b.text !== 'string' || b.text.trim() === '' || b.text.length > 25)) {
      return invalid('Each button needs a text of 1 to 25 characters.');
    }
    if (type === 'URL') {
      const params = placeholders(b.url);
      if (typeof b.url !== 'string' || !/^https?:\/\//.test(b.url) || b.url.length > 2000) return invalid('A URL button needs a url of at most 2000 characters.');
      if (params.length > 1 || (params.length === 1 && !/\{\{\s*1\s*\}\}$/.test(b.url))) return invalid('A URL button can have one variable, {{1}}, at the end of the url.');
      if (params.length === 1 && !(Array.isArray(b.example) && typeof b.example[0] === 'string')) return invalid('A URL button with a variable needs an example.');
    }
    if (type === 'PHONE_NUMBER' && (typeof b.phone_number !== 'string' || b.phone_number.length > 20)) return invalid('A phone number button needs a phone_number of at most 20 characters.');
    if (type === 'COPY_CODE' && (typeof b.example !== 'string' || b.example.length > 15)) return invalid('A copy code button needs an example of at most 15 characters.');
  }
  // Meta requires quick replies to be grouped together (before or after the other buttons).
  const kinds = buttons.map((b) => String(b?.type).toUpperCase() === 'QUICK_REPLY');
  const switches = kinds.filter((k, i) => i > 0 && k !== kinds[i - 1]).length;
  if (switches > 1) return invalid('Quick reply buttons must be grouped together.');
  return null;
}

/** A template as GET /{waba}/message_templates shows it, limited to `fields` when given. */
export function templateJson(t: Template, fields: readonly string[] | null): Record<string, unknown> {
  const full: Record<string, unknown> = {
    id: t.id, name: t.name, language: t.language, status: t.status, category: t.category,
    parameter_format: t.parameter_format, components: t.components, rejected_reason: t.rejected_reason,
  };
  if (!fields) return full;
  // Like Graph, the quality score is only returned when asked for.
  full.quality_score = t.quality_score;
  const out: Record<string, unknown> = { id: t.id };
  for (const f of fields) if (f in full) out[f] = full[f];
  return out;
}
