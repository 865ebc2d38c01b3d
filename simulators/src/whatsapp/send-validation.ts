// Checks a POST /{phone_number_id}/messages body the way the Cloud API does, in the same order:
// payload (100 / 131008) -> template exists and is approved (132001 / 132015 / 132016) ->
// parameter counts (132000) -> parameter content (100 / 132005 / 132012) -> buttons (131008 /
// 131009) -> media ids (131053). Header links are fetched afterwards by the route (131053).
import { graphError, type GraphError } from './errors';
import { BSUID } from './meta-rules';
import { hydrate, placeholders } from './placeholders';
import { checkButtons, checkMediaHeader, type MediaLink } from './send-components';
import { componentOf, type Template, type TemplateStore } from './templates';

export interface SendPlan {
  kind: 'template' | 'text';
  /** `to` (or `recipient`) as sent, and the digits of `to` ('' for a send by BSUID). */
  input: string;
  digits: string;
  /** The BSUID of `recipient` when the send is addressed by it (no `to`). */
  bsuid: string | null;
  template: Template | null;
  language: string;
  bizOpaque: string | null;
  componentsJson: string;
  /** Pricing category for the status webhooks. */
  category: string;
  /** Header links Meta downloads before it accepts the message. */
  mediaLinks: MediaLink[];
  /** Sent by POST /marketing_messages and delivered by that API (marketing-messages.ts). */
  route?: 'marketing_messages';
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

const TEXT_TYPES: Record<'HEADER' | 'BODY', string[]> = { HEADER: ['text'], BODY: ['text', 'currency', 'date_time'] };

function checkParameters(template: Template, sent: any[], isKnownMedia: (id: string) => boolean, links: MediaLink[]): SendCheck | null {
  for (const type of ['HEADER', 'BODY'] as const) {
    const declared = componentOf(template, type);
    const given = sentComponent(sent, type.toLowerCase());
    const params: any[] = Array.isArray(given?.parameters) ? given.parameters : [];
    const format = String(declared?.format ?? 'TEXT').toUpperCase();
    if (declared && type === 'HEADER' && MEDIA_FORMATS.includes(format)) {
      const media = checkMediaHeader(format, params, isKnownMedia);
      if ('error' in media) return { ok: false, error: media.error };
      links.push(...media.links);
      continue;
    }
    const names = declared ? placeholders(declared.text) : [];
    const expected = names.length;
    if (params.length !== expected) {
      return fail(132000, `${type.toLowerCase()}: number of localizable_params (${params.length}) does not match the expected number of params (${expected})`);
    }
    for (const p of params) {
      if (!TEXT_TYPES[type].includes(p?.type)) {
        return fail(132012, `${type.toLowerCase()}: parameter of type ${String(p?.type)} does not match the template (${TEXT_TYPES[type].join(', ')})`);
      }
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
    if (template.parameter_format === 'NAMED') {
      const given = params.map((p) => p.parameter_name);
      const wrong = names.filter((n) => !given.includes(n));
      if (wrong.length || new Set(given).size !== given.length) {
        return fail(132000, `${type.toLowerCase()}: expected the named parameters ${names.join(', ')}; got ${given.join(', ') || 'none'}`);
      }
    }
  }
  const buttons = checkButtons(componentOf(template, 'BUTTONS')?.buttons ?? [], sent);
  if (buttons && 'error' in buttons) return { ok: false, error: buttons.error };
  if (componentOf(template, 'CAROUSEL') && !sentComponent(sent, 'carousel')) {
    return fail(131008, 'carousel: the template is a carousel and its cards are required');
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

export function validateSend(body: any, wabaId: string, templates: TemplateStore, isKnownMedia: (id: string) => boolean = () => false): SendCheck {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return fail(100, 'The request body must be a JSON object');
  if (body.messaging_product !== 'whatsapp') return fail(100, 'The parameter messaging_product is required and must be "whatsapp"');
  const hasTo = !(body.to === undefined || body.to === null || body.to === '');
  const hasRecipient = !(body.recipient === undefined || body.recipient === null || body.recipient === '');
  // Meta: `to` is a phone, `recipient` a BSUID; with both, `to` takes precedence.
  if (!hasTo && !hasRecipient) return fail(100, 'The parameter to is required');
  const input = String(hasTo ? body.to : body.recipient);
  const bsuid = hasTo ? null : input;
  const digits = hasTo ? input.replace(/\D/g, '') : '';
  if (hasTo && (digits.length < 7 || digits.length > 15 || /[^\d\s+()\-.]/.test(input))) return fail(100, `Invalid parameter to: ${input}`);
  if (bsuid !== null && !BSUID.test(bsuid)) return fail(100, `Invalid parameter recipient: ${bsuid}`);
  if (body.recipient_type !== undefined && body.recipient_type !== 'individual') return fail(100, 'recipient_type must be individual');
  const bizOpaque = typeof body.biz_opaque_callback_data === 'string' ? body.biz_opaque_callback_data : null;
  const type = body.type ?? 'text';

  if (type === 'text') {
    if (typeof body.text?.body !== 'string' || body.text.body === '') return fail(100, 'The parameter text.body is required');
    return {
      ok: true,
      plan: { kind: 'text', input, digits, bsuid, template: null, language: '', bizOpaque, componentsJson: JSON.stringify([{ type: 'text', text: body.text.body }]), category: 'service', mediaLinks: [] },
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
  if (bsuid !== null && template.category === 'AUTHENTICATION') return fail(131062, 'Authentication templates cannot be sent to a business-scoped user ID; use the phone number.');
  const mediaLinks: MediaLink[] = [];
  const paramError = checkParameters(template, sent, isKnownMedia, mediaLinks);
  if (paramError) return paramError;
  return {
    ok: true,
    plan: { kind: 'template', input, digits, bsuid, template, language, bizOpaque, componentsJson: JSON.stringify(sent), category: template.category.toLowerCase(), mediaLinks },
  };
}
