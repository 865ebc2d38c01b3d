import type { FastifyInstance, FastifyRequest } from 'fastify';
import { notFound } from '../lib/errors';
import { isScoped, isVisible, visibleResources, type ScopedKind, type Visible } from '../services/organizations/member-scope';

declare module 'fastify' {
  interface FastifyRequest {
    /** What a scoped member sees (null: everything the role allows); resolved once per request. */
    visible: Visible | null;
  }
  interface FastifyContextConfig {
    /**
     * Which ids of the request name a number, Kommo account, campaign or template, and which
     * field of a list answer does: a scoped member gets 404 for ids out of scope, exactly as for
     * ids that do not exist, and lists without them.
     */
    scope?: {
      params?: Record<string, ScopedKind>;
      body?: Record<string, ScopedKind>;
      query?: Record<string, ScopedKind>;
      list?: { field: string; kind: 'kommo' | 'whatsapp' };
    };
  }
}

/** The same 404 each feature answers for an id that does not exist. */
const NOT_FOUND: Record<ScopedKind, string> = {
  kommo: 'Cuenta Kommo no encontrada',
  whatsapp: 'Cuenta de WhatsApp no encontrada',
  campaign: 'Campaña no encontrada',
  template: 'Plantilla no encontrada',
};

function idsIn(source: unknown, fields: Record<string, ScopedKind> | undefined): Array<[ScopedKind, number]> {
  if (!fields || !source || typeof source !== 'object') return [];
  const out: Array<[ScopedKind, number]> = [];
  for (const [field, kind] of Object.entries(fields)) {
    const raw = (source as Record<string, unknown>)[field];
    // A list of ids (a campaign's several numbers) names each of them.
    for (const item of Array.isArray(raw) ? raw : [raw]) {
      const value = Number(item);
      if (Number.isInteger(value) && value > 0) out.push([kind, value]);
    }
  }
  return out;
}

/**
 * Scopes in one place: unscoped members (owners, administrators, anyone without a scope) cost
 * nothing here; a scoped member costs one query for what they see, plus one key lookup per
 * campaign or template id named by the request.
 */
export function registerScopes(app: FastifyInstance) {
  app.decorateRequest('visible', null);

  app.addHook('preHandler', async (request: FastifyRequest) => {
    const declared = request.routeOptions.config?.scope;
    const restricted = request.apiKey?.restricted ?? false;
    if (!declared || !(request.session || request.apiKey) || !isScoped(request.role, request.scope, restricted)) return;
    const visible = await visibleResources(app.ctx.db, request.orgId, request.role, request.scope, restricted);
    request.visible = visible;
    if (!visible) return;
    const named = [
      ...idsIn(request.params, declared.params),
      ...idsIn(request.body, declared.body),
      ...idsIn(request.query, declared.query),
    ];
    for (const [kind, id] of named) {
      if (!(await isVisible(app.ctx.db, request.orgId, visible, kind, id))) throw notFound(NOT_FOUND[kind]);
    }
  });

  app.addHook('preSerialization', async (request, reply, payload) => {
    const list = request.routeOptions.config?.scope?.list;
    const visible = request.visible;
    if (!list || !visible || reply.statusCode >= 300 || !Array.isArray(payload)) return payload;
    const allowed = list.kind === 'kommo' ? visible.kommo : visible.whatsapp;
    return payload.filter((item) => allowed.has(Number((item as Record<string, unknown>)[list.field])));
  });
}
