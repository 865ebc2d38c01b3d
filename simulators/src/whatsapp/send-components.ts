// Media/location headers and button components of a template send, checked against the
// approved template the way the Cloud API refuses them.
import { graphError, type GraphError } from './errors';
import { placeholders } from './placeholders';

/** A header link Meta will have to download before delivering. */
export interface MediaLink {
  link: string;
  kind: string;
}

export type ComponentCheck = { error: GraphError } | { links: MediaLink[] };

const SUB_TYPE_OF: Record<string, string> = { URL: 'url', QUICK_REPLY: 'quick_reply', COPY_CODE: 'copy_code', FLOW: 'flow', CATALOG: 'catalog', MPM: 'mpm' };

const fail = (code: number, details: string): ComponentCheck => ({ error: graphError(code, details) });

/** One parameter for a media or location header, of the header's kind, with what it needs. */
export function checkMediaHeader(format: string, params: any[], isKnownMedia: (id: string) => boolean): ComponentCheck {
  if (params.length !== 1) {
    return fail(132000, `header: number of localizable_params (${params.length}) does not match the expected number of params (1)`);
  }
  const p = params[0];
  const kind = format.toLowerCase();
  const accepted = kind === 'gif' ? ['gif', 'video'] : [kind];
  if (!accepted.includes(p?.type)) {
    return fail(132012, `header: parameter of type ${String(p?.type)} does not match the template header format ${format}`);
  }
  if (kind === 'location') {
    const l = p.location;
    if (!l || l.latitude === undefined || l.longitude === undefined) return fail(131008, 'header: location requires latitude and longitude');
    return { links: [] };
  }
  const media = p[p.type];
  if (!media || typeof media !== 'object') return fail(131008, `header: parameter of type ${p.type} requires an ${p.type} object`);
  if (typeof media.id === 'string' && media.id !== '') {
    return isKnownMedia(media.id) ? { links: [] } : fail(131053, `Media id ${media.id} was not found or has expired`);
  }
  if (typeof media.link === 'string' && media.link !== '') return { links: [{ link: media.link, kind }] };
  return fail(131008, `header: ${p.type} requires a link or an id`);
}

/** Button components: index and sub_type against BUTTONS, parameters per sub_type, required ones present. */
export function checkButtons(declaredButtons: any[], sent: any[]): ComponentCheck | null {
  const given = sent.filter((c) => typeof c?.type === 'string' && c.type.toLowerCase() === 'button');
  const seen = new Set<number>();
  for (const b of given) {
    const raw = b.index;
    const index = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isInteger(index)) return fail(100, `buttons: invalid index ${JSON.stringify(raw)}`);
    const declared = declaredButtons[index];
    if (!declared) return fail(131009, `buttons: the template has no button at index ${index}`);
    if (seen.has(index)) return fail(131009, `buttons: button at index ${index} is given more than once`);
    seen.add(index);
    const type = String(declared.type ?? '').toUpperCase();
    const expected = SUB_TYPE_OF[type];
    if (!expected || b.sub_type !== expected) {
      return fail(131009, `buttons: button at index ${index} is of type ${type}; sub_type ${String(b.sub_type)} does not match`);
    }
    const params: any[] = Array.isArray(b.parameters) ? b.parameters : [];
    const problem = buttonParameterProblem(type, declared, params, index);
    if (problem) return problem;
  }
  for (const [index, declared] of declaredButtons.entries()) {
    if (seen.has(index)) continue;
    const type = String(declared?.type ?? '').toUpperCase();
    if ((type === 'URL' && placeholders(declared.url).length > 0) || type === 'COPY_CODE') {
      return fail(131008, `buttons: Button at index ${index} of type ${type === 'URL' ? 'Url' : 'CopyCode'} requires a parameter`);
    }
  }
  return null;
}

function buttonParameterProblem(type: string, declared: any, params: any[], index: number): ComponentCheck | null {
  const where = `buttons: button at index ${index}`;
  if (type === 'URL') {
    const expected = placeholders(declared.url).length > 0 ? 1 : 0;
    if (params.length !== expected) {
      return fail(132000, `${where}: number of params (${params.length}) does not match the expected number of params (${expected})`);
    }
    if (expected && (params[0]?.type !== 'text' || typeof params[0].text !== 'string' || params[0].text === '')) {
      return fail(132012, `${where}: a URL button takes one parameter of type text`);
    }
    return null;
  }
  if (type === 'QUICK_REPLY') {
    if (params.length !== 1 || params[0]?.type !== 'payload' || typeof params[0].payload !== 'string') {
      return fail(132012, `${where}: a quick reply takes one parameter of type payload`);
    }
    if (params[0].payload.length > 128) return fail(100, `${where}: the payload can have at most 128 characters`);
    return null;
  }
  if (type === 'COPY_CODE') {
    const code = params[0]?.coupon_code;
    if (params.length !== 1 || params[0]?.type !== 'coupon_code' || typeof code !== 'string' || code === '') {
      return fail(132012, `${where}: a copy code button takes one parameter of type coupon_code`);
    }
    if (code.length > 15) return fail(100, `${where}: the coupon code can have at most 15 characters`);
  }
  return null;
}
