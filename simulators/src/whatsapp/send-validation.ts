// Checks a POST /{phone_number_id}/messages body the way the Cloud API does, in the same order:
// payload (100 / 131008) -> template exists and is approved (132001 / 132015 / 132016) ->
// parameter counts (132000) -> parameter content (100 / 132005 / 132012).
import { graphError, type GraphError } from './errors';
import { hydrate, placeholders } from './placeholders';
import { componentOf, type Template, type TemplateStore } from './templates';

export interface SendPlan {
  kind: 'template' | 'text';
  /** `to` as sent, and its digits. */
  input: string;
  digits: string;
  template: Template | null;
  language: string;
  bizOpaque: string | null;
  componentsJson: string;
  /** Pricing category for the status webhooks. */
  category: string;
}

export type SendCheck = { ok: true; plan: SendPlan } | { ok: false; error: GraphError };

const fail = (code: number, details?: string): SendCheck => ({ ok: false, error: graphError(code, details) });

const MEDIA_FORMATS = ['IMAGE', 'VIDEO', 'DOCUMENT', 'LOCATION', 'GIF'];

function sentComponent(components: any[], type: string): any | undefined {
  return components.find((c) => typeof c?.type === 'string' && c.type.toLowerCase() === type);
}

/** The text a parameter stands for in the hydrated message. */
function parameterText(p: any): string {
  if (p?.type === 'currency') return String(p.currency?.fallback_value ?? '');
  if (p?.type === 'date_time') return String(p.date_time?.fallback_value ?? '');
  return typeof p?.text === 'string' ? p.text : '';
}

function checkParameters(template: Template, sent: any[]): SendCheck | null {
  for (const type of ['HEADER', 'BODY'] as const) {
    const declared = componentOf(template, type);
    const given = sentComponent(sent, type.toLowerCase());
    const params: any[] = Array.isArray(given?.parameters) ? given.parameters : [];
    const format = String(declared?.format ?? 'TEXT').toUpperCase();
    const expected = !declared ? 0 : type === 'HEADER' && MEDIA_FORMATS.includes(format) ? 1 : placeholders(declared.text).length;
    if (params.length !== expected) {
      return fail(132000, `${type.toLowerCase()}: number of localizable_params (${params.length}) does not match the expected number of params (${expected})`);
    }
    for (const p of params) {
      if (p?.type === 'text') {
        if (typeof p.text !== 'string' || p.text.length === 0) return fail(131008, 'Parameter of type text is missing text value');
        if (/[\n\t]/.test(p.text) || / {5,}/.test(p.text)) {
          return fail(100, 'Param text cannot have new-line/tab characters or more than 4 consecutive spaces');
        }
      }
      const named = typeof p?.parameter_name === 'string';
      if (named !== (template.parameter_format === 'NAMED')) {
        return fail(132012, `${type.toLowerCase()}: parameter format does not match the template (${template.parameter_format})`);
      }
    }
  }
  const body = componentOf(template, 'BODY');
  if (typeof body?.text === 'string') {
    const params: any[] = sentComponent(sent, 'body')?.parameters ?? [];
    const values: Record<string, string> = {};
    params.forEach((p, i) => { values[p?.parameter_name ?? String(i + 1)] = parameterText(p); });
    if (hydrate(body.text, values).length > 1024) return fail(132005, 'The message body is longer than 1024 characters once the parameters are filled in');
  }
  return null;
}

export function validateSend(body: any, wabaId: string, templates: TemplateStore): SendCheck {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return fail(100, 'The request body must be a JSON object');
  if (body.messaging_product !== 'whatsapp') return fail(100, 'The parameter messaging_product is required and must be "whatsapp"');
  if (body.to === undefined || body.to === null || body.to === '') return fail(100, 'The parameter to is required');
  const input = String(body.to);
  const digits = input.replace(/\D/g, '');
  if (digits.length < 7 || digits.length > 15 || /[^\d\s+()\-.]/.test(input)) return fail(100, `Invalid parameter to: ${input}`);
  if (body.recipient_type !== undefined && body.recipient_type !== 'individual') return fail(100, 'recipient_type must be individual');
  const bizOpaque = typeof body.biz_opaque_callback_data === 'string' ? body.biz_opaque_callback_data : null;
  const type = body.type ?? 'text';

  if (type === 'text') {
    if (typeof body.text?.body !== 'string' || body.text.body === '') return fail(100, 'The parameter text.body is required');
    return {
      ok: true,
      plan: { kind: 'text', input, digits, template: null, language: '', bizOpaque, componentsJson: JSON.stringify([{ type: 'text', text: body.text.body }]), category: 'service' },
    };
  }
  if (type !== 'template') return fail(131051, `Message type ${String(type)} is not supported by this simulator`);

  const t = body.template;
  if (!t || typeof t !== 'object') return fail(100, 'The parameter template is required');
  if (typeof t.name !== 'string' || t.name === '') return fail(100, 'The parameter template.name is required');
  const language = typeof t.language === 'string' ? t.language : t.language?.code;
  if (typeof language !== 'string' || language === '') return fail(100, 'The parameter template.language.code is required');
  if (t.components !== undefined && !Array.isArray(t.components)) return fail(100, 'template.components must be an array');
  const sent: any[] = t.components ?? [];

  const template = templates.find(wabaId, t.name, language);
  if (!template || (template.status !== 'APPROVED' && template.status !== 'PAUSED' && template.status !== 'DISABLED')) {
    return fail(132001, `template name (${t.name}) does not exist in ${language}`);
  }
  if (template.status === 'PAUSED') return fail(132015);
  if (template.status === 'DISABLED') return fail(132016);
  const paramError = checkParameters(template, sent);
  if (paramError) return paramError;
  return {
    ok: true,
    plan: { kind: 'template', input, digits, template, language, bizOpaque, componentsJson: JSON.stringify(sent), category: template.category.toLowerCase() },
  };
}
