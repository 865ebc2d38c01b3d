// Kommo API v4 routes, mounted under /:subdomain so one server hosts many accounts. Every request
// passes the same gate as in Kommo: block (403) -> rate limit (429) -> injected fault -> token (401).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { endHang, firstString, sleep, type Hangs } from '../shared/server';
import type { KommoAccount, ListQuery } from './account';
import { contactJson } from './contact-json';
import { fieldJson } from './fields';
import { pageLinks, parsePaging } from './paging';
import { hal, noContent, problem, serverError, unauthorized } from './replies';
import type { KommoState } from './state';
import { registerKommoCrmRoutes, wantsLeads, withLeads } from './crm-routes';
import { registerKommoFeedRoutes } from './feed-routes';

type Req = FastifyRequest<{ Params: { subdomain: string; id?: string }; Querystring: Record<string, unknown> }>;

const HANG_MS = 30_000;

function origin(req: FastifyRequest): string {
  return `http://${req.headers.host ?? 'localhost'}`;
}

function rawQuery(req: FastifyRequest): string {
  const q = req.url.indexOf('?');
  return q < 0 ? '' : req.url.slice(q + 1);
}

function unixParam(v: unknown): number | undefined {
  const n = Number.parseInt(firstString(v) ?? '', 10);
  return Number.isFinite(n) ? n : undefined;
}

function idsParam(query: Record<string, unknown>): number[] | undefined {
  const raw = query['filter[id][]'] ?? query['filter[id]'];
  if (raw === undefined) return undefined;
  const parts = (Array.isArray(raw) ? raw : [raw]).flatMap((v) => String(v).split(','));
  return parts.map((p) => Number.parseInt(p, 10)).filter(Number.isFinite);
}

function listQuery(query: Record<string, unknown>): ListQuery {
  const byUpdated = firstString(query['order[updated_at]']);
  const byId = firstString(query['order[id]']) ?? firstString(query['order[created_at]']);
  const text = firstString(query.query)?.trim();
  return {
    from: unixParam(query['filter[updated_at][from]']),
    to: unixParam(query['filter[updated_at][to]']),
    orderBy: byUpdated ? 'updated_at' : 'id',
    desc: (byUpdated ?? byId) === 'desc',
    query: text ? text : undefined,
    ids: idsParam(query),
  };
}

export function registerKommoRoutes(app: FastifyInstance, state: KommoState, hangs: Hangs): void {
  const accountOf = new WeakMap<FastifyRequest, KommoAccount>();

  // The gate every API request passes before its handler.
  const gate = async (req: Req, reply: FastifyReply) => {
    const { subdomain } = req.params;
    if (state.config.latencyMs > 0) await sleep(state.config.latencyMs);
    const verdict = state.gate(subdomain, performance.now());
    if (verdict === 'blocked') {
      // Kommo's block page is not JSON; clients must cope with that.
      return reply.code(403).header('content-type', 'text/html; charset=utf-8')
        .send('<html><body><h1>403 Forbidden</h1>Access denied: too many requests.</body></html>');
    }
    if (verdict === 'rate_limited') {
      return problem(reply, 429, 'You have sent too many requests in a given amount of time. Try again later.', {
        retry_after: state.config.retryAfterSeconds,
      });
    }
    const isContactsList = req.routeOptions.url?.endsWith('/api/v4/contacts') ?? false;
    const fault = state.faults.take({ subdomain, contactsPage: isContactsList ? parsePaging(req.query).page : undefined });
    if (fault) {
      switch (fault.kind) {
        case 'unauthorized':
          return unauthorized(reply);
        case 'timeout':
          return endHang(await hangs.wait(HANG_MS, (done) => reply.raw.once('close', done)), reply, () => problem(reply, 504, 'Gateway timeout'));
        case '5xx':
          return serverError(reply, fault.status ?? 500);
        case 'failPageOnce':
          return serverError(reply, fault.status ?? 500);
        case 'emptyOk':
          return reply.code(200).header('content-type', 'application/hal+json').send('{}');
        case 'rateLimited':
          return problem(reply, 429, 'You have sent too many requests in a given amount of time. Try again later.', { retry_after: state.config.retryAfterSeconds });
      }
    }
    const account = state.accounts.get(subdomain);
    const auth = req.headers.authorization;
    if (!account || auth !== `Bearer ${account.token}`) return unauthorized(reply);
    accountOf.set(req, account);
  };

  const withAccount = (handler: (req: Req, reply: FastifyReply, account: KommoAccount) => unknown) =>
    ({ onRequest: gate, handler: (req: Req, reply: FastifyReply) => handler(req, reply, accountOf.get(req) as KommoAccount) });

  app.get('/:subdomain/api/v4/account', withAccount((req, reply, account) => {
    const self = `${origin(req)}/${account.subdomain}`;
    return hal(reply, {
      id: account.id,
      name: `Cuenta ${account.subdomain}`,
      subdomain: account.subdomain,
      created_at: account.createdAt,
      created_by: account.currentUserId,
      updated_at: account.createdAt,
      updated_by: account.currentUserId,
      current_user_id: account.currentUserId,
      country: 'AR',
      currency: 'ARS',
      currency_symbol: '$',
      customers_mode: 'disabled',
      is_unsorted_on: true,
      is_loss_reason_enabled: true,
      is_helpbot_enabled: false,
      is_technical_account: false,
      contact_name_display_order: 1,
      mobile_feature_version: 0,
      _links: { self: { href: `${self}/api/v4/account` } },
    });
  }));

  app.get('/:subdomain/api/v4/contacts', withAccount((req, reply, account) => {
    const paging = parsePaging(req.query);
    const ids = account.list(listQuery(req.query), paging.offset, paging.limit);
    if (ids.length === 0) return noContent(reply);
    const self = `${origin(req)}/${account.subdomain}`;
    const contacts = ids.map((id) => contactJson(account, account.resolve(id), self));
    if (wantsLeads(req.query)) for (const c of contacts) Object.assign(c._embedded, { leads: withLeads(account, c.id, self) });
    return hal(reply, {
      _page: paging.page,
      _links: pageLinks(`${self}/api/v4/contacts`, rawQuery(req), paging, ids.length),
      _embedded: { contacts },
    });
  }));

  app.get('/:subdomain/api/v4/contacts/:id', withAccount((req, reply, account) => {
    const id = Number.parseInt(req.params.id ?? '', 10);
    if (!account.exists(id)) return noContent(reply);
    const self = `${origin(req)}/${account.subdomain}`;
    const contact = contactJson(account, account.resolve(id), self);
    if (wantsLeads(req.query)) Object.assign(contact._embedded, { leads: withLeads(account, id, self) });
    return hal(reply, contact);
  }));

  app.get('/:subdomain/api/v4/contacts/custom_fields', withAccount((req, reply, account) => {
    const paging = parsePaging(req.query);
    const all = account.fields.all;
    const page = all.slice(paging.offset, paging.offset + paging.limit);
    if (page.length === 0) return noContent(reply);
    const self = `${origin(req)}/${account.subdomain}`;
    return hal(reply, {
      _total_items: all.length,
      _page: paging.page,
      _page_count: Math.ceil(all.length / paging.limit),
      _links: pageLinks(`${self}/api/v4/contacts/custom_fields`, rawQuery(req), paging, page.length),
      _embedded: { custom_fields: page.map((f) => fieldJson(f, account.id, self)) },
    });
  }));

  registerKommoCrmRoutes(app, state, withAccount);
  registerKommoFeedRoutes(app, state, withAccount);

  app.get('/:subdomain/api/v4/contacts/tags', withAccount((req, reply, account) => {
    const paging = parsePaging(req.query);
    const text = firstString(req.query.query)?.toLowerCase();
    const exact = firstString(req.query['filter[name]']);
    const tags = account.tags.list.filter((t) => (!text || t.name.toLowerCase().includes(text)) && (!exact || t.name === exact));
    const page = tags.slice(paging.offset, paging.offset + paging.limit);
    if (page.length === 0) return noContent(reply);
    const self = `${origin(req)}/${account.subdomain}`;
    return hal(reply, {
      _page: paging.page,
      _links: pageLinks(`${self}/api/v4/contacts/tags`, rawQuery(req), paging, page.length),
      _embedded: { tags: page },
    });
  }));
}
