// Graph API routes of the Cloud API simulator. Any /vNN.N/ version prefix is accepted.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { endHang, firstString, sleep, type Hangs } from '../shared/server';
import { graphError, invalidTokenError, templateError, unknownObjectError, type GraphError } from './errors';
import { MAX_UPLOAD_BODY, SIM_APP_ID, mediaError, mediaProblem, parseMultipart } from './media';
import { phoneNumberJson } from './phone-numbers';
import { validateSend } from './send-validation';
import { nowMs, type WhatsAppState } from './state';
import { ttlProblem } from './marketing-messages';
import { TEMPLATE_FIELDS, templateJson } from './templates';
import { compareTemplates } from './template-compare';

type Req = FastifyRequest<{ Params: { version: string; id: string }; Querystring: Record<string, unknown> }>;

const VERSION = /^v\d+\.\d+$/;
const HANG_MS = 30_000;
const DEFAULT_TEMPLATE_PAGE = 25;

function send(reply: FastifyReply, e: GraphError): FastifyReply {
  return reply.code(e.status).send(e.body);
}

function tokenOf(req: Req): string | undefined {
  const auth = req.headers.authorization;
  if (auth?.startsWith('Bearer ')) return auth.slice(7).trim();
  // The Resumable Upload API documents `Authorization: OAuth {token}`.
  if (auth?.startsWith('OAuth ')) return auth.slice(6).trim();
  return firstString(req.query.access_token);
}

function fieldsParam(req: Req): string[] | null {
  const raw = firstString(req.query.fields);
  return raw ? raw.split(',').map((f) => f.trim()).filter(Boolean) : null;
}

const cursor = {
  encode: (id: string) => Buffer.from(id).toString('base64url'),
  /** The template id a cursor carries, or null for a cursor this server did not make. */
  decode: (c: string): bigint | null => {
    const id = Buffer.from(c, 'base64url').toString();
    return /^\d{1,20}$/.test(id) ? BigInt(id) : null;
  },
};

/** GET /{waba_id}: the WABA, with the portfolio that owns it in `owner_business_info`. */
function wabaJson(state: WhatsAppState, wabaId: string, fields: string[] | null): Record<string, unknown> {
  const owner = [...state.numbers.values()].find((n) => n.wabaId === wabaId);
  const full: Record<string, unknown> = {
    id: wabaId, name: `WABA ${wabaId}`, currency: 'USD', timezone_id: '1', message_template_namespace: `ns_${wabaId}`, account_review_status: 'APPROVED',
  };
  if (owner) {
    full.owner_business_info = {
      id: owner.businessId,
      name: state.rules.portfolio(owner.businessId).name,
      marketing_messages_onboarding_status: { status: state.mm.termsStatus(wabaId) },
    };
  }
  full.marketing_messages_onboarding_status = state.mm.status(wabaId);
  if (!fields) {
    delete full.owner_business_info;
    delete full.marketing_messages_onboarding_status;
    return full;
  }
  const out: Record<string, unknown> = {};
  for (const f of fields) if (f in full) out[f] = full[f];
  out.id = wabaId;
  return out;
}

export function registerGraphRoutes(app: FastifyInstance, state: WhatsAppState, hangs: Hangs): void {
  /** Version, token and object checks shared by every route; returns an error to send, if any. */
  const check = (req: Req, kind: 'number' | 'waba' | 'any'): GraphError | null => {
    if (!VERSION.test(req.params.version)) return graphError(100, `Unknown path components: /${req.params.version}`);
    const token = tokenOf(req);
    const { id } = req.params;
    const number = state.numbers.get(id);
    const isWaba = !number && state.isWaba(id);
    if (kind === 'number' && number) return state.tokenValidForWaba(number.wabaId, token) ? null : invalidTokenError();
    if (kind === 'waba' && isWaba) return state.tokenValidForWaba(id, token) ? null : invalidTokenError();
    if (kind === 'any' && (number || isWaba)) {
      return state.tokenValidForWaba(number ? number.wabaId : id, token) ? null : invalidTokenError();
    }
    return state.tokenKnown(token) ? unknownObjectError(id, req.method) : invalidTokenError();
  };

  const managementLimit = (wabaId: string): GraphError | null =>
    state.countManagementCall(wabaId) ? null : graphError(80008);

  app.get('/:version/:id', async (req: Req, reply) => {
    const error = check(req, 'any');
    if (error) return send(reply, error);
    const number = state.numbers.get(req.params.id);
    const wabaId = number ? number.wabaId : req.params.id;
    const limited = managementLimit(wabaId);
    if (limited) return send(reply, limited);
    if (number) return phoneNumberJson(number, fieldsParam(req), state.rules.config.legacyLimitShape);
    return wabaJson(state, wabaId, fieldsParam(req));
  });

  app.get('/:version/:id/phone_numbers', async (req: Req, reply) => {
    const error = check(req, 'waba') ?? managementLimit(req.params.id);
    if (error) return send(reply, error);
    // Paged like Graph: `limit` (default 25) and an opaque `after` cursor; `next` only when more remain.
    const num = (id: string) => (/^\d{1,20}$/.test(id) ? BigInt(id) : 0n);
    const all = [...state.numbers.values()].filter((n) => n.wabaId === req.params.id).sort((a, b) => (num(a.phoneNumberId) < num(b.phoneNumberId) ? -1 : 1));
    const limit = Math.min(Math.max(Number(firstString(req.query.limit)) || DEFAULT_TEMPLATE_PAGE, 1), 100);
    const afterRaw = firstString(req.query.after);
    const afterId = afterRaw ? cursor.decode(afterRaw) : null;
    const start = afterId === null ? 0 : all.findIndex((n) => num(n.phoneNumberId) > afterId);
    const page = start < 0 ? [] : all.slice(start, start + limit);
    const data = page.map((n) => phoneNumberJson(n, fieldsParam(req), state.rules.config.legacyLimitShape));
    if (!data.length) return { data };
    const paging: Record<string, unknown> = {
      cursors: { before: cursor.encode(data[0]!.id as string), after: cursor.encode(data[data.length - 1]!.id as string) },
    };
    if (start + limit < all.length) paging.next = `${req.protocol}://${req.hostname}${req.url.split('?')[0]}?limit=${limit}&after=${cursor.encode(data[data.length - 1]!.id as string)}`;
    return { data, paging };
  });

  const arrivals = new WeakMap<FastifyRequest, number>();
  const sendMessage = async (req: Req, reply: FastifyReply, route: 'messages' | 'marketing_messages') => {
    // On the way in: the send is counted (throughput window, message log) only once it arrives.
    const travel = state.arrivalDelayMs();
    if (travel > 0) await sleep(travel);
    // Its arrival: when the request reached this server (before its body was read and checked),
    // plus the simulated travel.
    const arrivedAt = Math.min(nowMs(), (arrivals.get(req) ?? nowMs()) + travel);
    const error = check(req, 'number');
    if (error) return send(reply, error);
    const number = state.number(req.params.id);
    let viaMarketing = false;
    if (route === 'marketing_messages') {
      const mm = state.mm.check(req.body, number.wabaId, (name, language) => state.templates.find(number.wabaId, name, language));
      if ('error' in mm) return send(reply, mm.error);
      viaMarketing = !mm.fallback;
    }
    const fault = state.faults.take(number.phoneNumberId);
    switch (fault?.kind) {
      case 'invalid_token':
        return send(reply, invalidTokenError());
      case '5xx':
        return send(reply, graphError(2, undefined, {}, fault.status ?? 503));
      case 'code':
        return send(reply, graphError(fault.code as number, undefined, {}, fault.status));
      case 'timeout':
        return endHang(await hangs.wait(HANG_MS, (done) => reply.raw.once('close', done)), reply, () => send(reply, graphError(2, 'Request timed out', {}, 504)));
    }
    let checked = validateSend(req.body, number.wabaId, state.templates, (id) => state.media.get(id)?.phoneNumberId === number.phoneNumberId);
    if (checked.ok && viaMarketing) checked.plan.route = 'marketing_messages';
    for (const m of checked.ok ? checked.plan.mediaLinks : []) {
      const problem = await state.media.linkProblem(m.link, m.kind);
      if (problem) {
        checked = { ok: false, error: mediaError(problem) };
        break;
      }
    }
    const result = checked.ok ? state.accept(number, checked.plan, arrivedAt) : checked;
    if (state.config.latencyMs > 0) await sleep(state.config.latencyMs);
    if (fault?.kind === 'lost_response') {
      // The message is accepted and its webhooks will come, but the caller never hears back.
      reply.hijack();
      reply.raw.destroy();
      return reply;
    }
    if (!result.ok) return send(reply, result.error);
    const plan = checked.ok ? checked.plan : null;
    const message: Record<string, string> = { id: result.wamid };
    if (plan?.kind === 'template') message.message_status = result.held ? 'held_for_quality_assessment' : 'accepted';
    // A send by BSUID answers with user_id instead of wa_id.
    const contact = result.userId !== null ? { input: plan?.input ?? '', user_id: result.userId } : { input: plan?.input ?? '', wa_id: result.waId };
    // The Marketing Messages API answers like Cloud API, with `success: true` (MarketingMessageResponsePayload).
    return route === 'marketing_messages'
      ? { messaging_product: 'whatsapp', contacts: [contact], messages: [message], success: true }
      : { messaging_product: 'whatsapp', contacts: [contact], messages: [message] };
  };
  // A send's arrival is taken as its request reaches the server, before the body is read.
  const arrived = { onRequest: (req: FastifyRequest, _reply: FastifyReply, done: () => void) => void (arrivals.set(req, nowMs()), done()) };
  app.post('/:version/:id/messages', arrived, (req: Req, reply) => sendMessage(req, reply, 'messages'));
  app.post('/:version/:id/marketing_messages', arrived, (req: Req, reply) => sendMessage(req, reply, 'marketing_messages'));

  app.get('/:version/:id/template_analytics', async (req: Req, reply) => {
    const error = check(req, 'waba') ?? managementLimit(req.params.id);
    if (error) return send(reply, error);
    const q = Object.fromEntries(Object.entries((req.query ?? {}) as Record<string, unknown>).map(([k, v]) => [k, firstString(v)]));
    const known = (id: string) => state.templates.list(req.params.id).some((t) => t.id === id);
    const out = state.mm.analytics(req.params.id, q, known);
    return 'error' in out ? send(reply, out.error) : out.body;
  });

  // Bytes only matter for their size and type here: every upload route takes a raw buffer.
  app.addContentTypeParser('multipart/form-data', { parseAs: 'buffer', bodyLimit: MAX_UPLOAD_BODY }, (_req, body, done) => done(null, body));
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_UPLOAD_BODY }, (_req, body, done) => done(null, body));

  app.post('/:version/:id/media', { bodyLimit: MAX_UPLOAD_BODY }, async (req: Req, reply) => {
    const error = check(req, 'number');
    if (error) return send(reply, error);
    const body = req.body;
    const form = Buffer.isBuffer(body) ? parseMultipart(body, String(req.headers['content-type'] ?? '')) : null;
    if (!form) return send(reply, graphError(100, 'The media must be sent as multipart/form-data'));
    if (form.fields.messaging_product !== 'whatsapp') return send(reply, graphError(100, 'The parameter messaging_product is required and must be "whatsapp"'));
    if (!form.file) return send(reply, graphError(100, 'The parameter file is required'));
    const mime = form.fields.type || form.file.mime;
    const problem = mediaProblem(mime, form.file.size);
    if (problem) return send(reply, mediaError(problem));
    return { id: state.media.add(req.params.id, mime, form.file.size, form.file.filename).id };
  });

  app.post('/:version/:id/uploads', async (req: Req, reply) => {
    if (!VERSION.test(req.params.version)) return send(reply, graphError(100, `Unknown path components: /${req.params.version}`));
    if (!state.tokenKnown(tokenOf(req))) return send(reply, invalidTokenError());
    if (req.params.id !== SIM_APP_ID) return send(reply, unknownObjectError(req.params.id, req.method));
    const length = Number(firstString(req.query.file_length));
    const type = firstString(req.query.file_type) ?? '';
    if (!Number.isInteger(length) || length <= 0) return send(reply, graphError(100, 'The parameter file_length is required'));
    const problem = mediaProblem(type, length);
    if (problem) return send(reply, graphError(100, problem));
    return { id: state.media.openSession(length, type) };
  });

  app.post('/:version/:id', { bodyLimit: MAX_UPLOAD_BODY }, async (req: Req, reply) => {
    if (!VERSION.test(req.params.version)) return send(reply, graphError(100, `Unknown path components: /${req.params.version}`));
    const token = tokenOf(req);
    const template = state.templates.byId(req.params.id);
    if (template) {
      // POST /{template_id}: edits a template; here, its `message_send_ttl_seconds`.
      if (!state.tokenValidForWaba(template.wabaId, token)) return send(reply, invalidTokenError());
      const body = (req.body && typeof req.body === 'object' && !Buffer.isBuffer(req.body) ? req.body : {}) as Record<string, unknown>;
      const problem = ttlProblem(template.category, body.message_send_ttl_seconds);
      if (problem) return send(reply, problem);
      if (body.message_send_ttl_seconds === null || body.message_send_ttl_seconds === -1) state.mm.ttl.delete(template.id);
      else if (body.message_send_ttl_seconds !== undefined) state.mm.ttl.set(template.id, Number(body.message_send_ttl_seconds));
      return { success: true };
    }
    if (!req.params.id.startsWith('upload:')) return send(reply, state.tokenKnown(token) ? unknownObjectError(req.params.id, req.method) : invalidTokenError());
    if (!state.tokenKnown(token)) return send(reply, invalidTokenError());
    const bytes = Buffer.isBuffer(req.body) ? req.body.length : 0;
    const done = state.media.finishSession(req.params.id, Number(req.headers.file_offset ?? 0), bytes);
    return 'error' in done ? send(reply, done.error) : done;
  });

  // Meta's Template Comparison API (template-compare.ts): GET /{template_id}/compare.
  app.get('/:version/:id/compare', async (req: Req, reply) => {
    if (!VERSION.test(req.params.version)) return send(reply, graphError(100, `Unknown path components: /${req.params.version}`));
    const target = state.templates.byId(req.params.id);
    const token = tokenOf(req);
    if (!target) return send(reply, state.tokenKnown(token) ? unknownObjectError(req.params.id, req.method) : invalidTokenError());
    if (!state.tokenValidForWaba(target.wabaId, token)) return send(reply, invalidTokenError());
    const limited = managementLimit(target.wabaId);
    if (limited) return send(reply, limited);
    const out = compareTemplates({
      target,
      templateIds: firstString(req.query.template_ids),
      start: firstString(req.query.start),
      end: firstString(req.query.end),
      nowSec: Math.floor(Date.now() / 1000),
      lookup: (id) => state.templates.byId(id),
      sends: (t, from, to) => state.log.sendsOf(t.name, t.language, from, to),
      blockRate: (t) => state.config.templateBlockRates?.[t.name] ?? 0,
    });
    return 'error' in out ? send(reply, out.error) : out.body;
  });

  app.get('/:version/:id/message_templates', async (req: Req, reply) => {
    const error = check(req, 'waba') ?? managementLimit(req.params.id);
    if (error) return send(reply, error);
    const q = req.query;
    const filters = { name: firstString(q.name), status: firstString(q.status), language: firstString(q.language), category: firstString(q.category) };
    const all = state.templates.list(req.params.id).filter((t) =>
      (!filters.name || t.name.includes(filters.name)) &&
      (!filters.status || t.status === filters.status.toUpperCase()) &&
      (!filters.language || t.language === filters.language) &&
      (!filters.category || t.category === filters.category.toUpperCase()));
    const rawLimit = Number.parseInt(firstString(q.limit) ?? '', 10);
    const limit = Number.isFinite(rawLimit) && rawLimit > 0 ? Math.min(rawLimit, 1000) : DEFAULT_TEMPLATE_PAGE;
    // Cursors carry a template id; ids grow with creation order, so a deleted cursor still works.
    const after = firstString(q.after);
    const before = firstString(q.before);
    const afterId = after ? cursor.decode(after) : null;
    const beforeId = before ? cursor.decode(before) : null;
    if ((after && afterId === null) || (before && beforeId === null)) return send(reply, graphError(100, 'Invalid paging cursor'));
    let start = 0;
    let end = Math.min(all.length, limit);
    if (afterId !== null) {
      start = all.findIndex((t) => BigInt(t.id) > afterId);
      if (start < 0) start = all.length;
      end = Math.min(all.length, start + limit);
    } else if (beforeId !== null) {
      end = all.findIndex((t) => BigInt(t.id) >= beforeId);
      if (end < 0) end = all.length;
      start = Math.max(0, end - limit);
    }
    const page = all.slice(start, end);
    const fields = fieldsParam(req)?.filter((f) => (TEMPLATE_FIELDS as readonly string[]).includes(f)) ?? null;
    const body: Record<string, unknown> = { data: page.map((t) => templateJson(t, fields)) };
    if (page.length > 0) {
      const base = `http://${req.headers.host ?? 'localhost'}/${req.params.version}/${req.params.id}/message_templates`;
      const params = (extra: Record<string, string>) => {
        const p = new URLSearchParams();
        for (const [k, v] of Object.entries(q)) if (typeof v === 'string' && k !== 'after' && k !== 'before') p.set(k, v);
        p.set('limit', String(limit));
        for (const [k, v] of Object.entries(extra)) p.set(k, v);
        return `${base}?${p.toString()}`;
      };
      const paging: Record<string, unknown> = { cursors: { before: cursor.encode(page[0].id), after: cursor.encode(page[page.length - 1].id) } };
      if (end < all.length) paging.next = params({ after: cursor.encode(page[page.length - 1].id) });
      if (start > 0) paging.previous = params({ before: cursor.encode(page[0].id) });
      body.paging = paging;
    }
    if (firstString(q.summary) === 'total_count') body.summary = { total_count: all.length };
    return body;
  });

  app.post('/:version/:id/message_templates', async (req: Req, reply) => {
    const error = check(req, 'waba') ?? managementLimit(req.params.id);
    if (error) return send(reply, error);
    const invalid = state.templates.validateCreate(req.params.id, req.body) ?? ttlProblem(String((req.body as any)?.category ?? ''), (req.body as any)?.message_send_ttl_seconds);
    if (invalid) return send(reply, invalid);
    const t = state.createTemplate(req.params.id, req.body);
    return { id: t.id, status: t.status, category: t.category };
  });

  app.delete('/:version/:id/message_templates', async (req: Req, reply) => {
    const error = check(req, 'waba') ?? managementLimit(req.params.id);
    if (error) return send(reply, error);
    const name = firstString(req.query.name);
    if (!name) return send(reply, templateError(null, 'Invalid parameter', 'The parameter name is required.'));
    const hsmId = firstString(req.query.hsm_id);
    const removed = state.templates.delete(req.params.id, name, hsmId);
    if (removed === 0) {
      return send(reply, templateError(2593002, 'Message template not found', `No template named ${name}${hsmId ? ` with id ${hsmId}` : ''}.`));
    }
    return { success: true };
  });
}
