// Kommo API v4: webhook subscriptions (GET / POST / DELETE /api/v4/webhooks) and the event feed
// (GET /api/v4/events, /api/v4/events/{id}). Same gate as every route (block, rate, faults, token).
import type { FastifyInstance } from 'fastify';
import { firstString } from '../shared/server';
import { origin, rawQuery, refuse, type WithAccount } from './crm-routes';
import { eventJson, type EventQuery } from './events';
import { pageLinks, parsePaging } from './paging';
import { listParam, numbersParam } from './query';
import { hal, noContent, problem } from './replies';
import type { KommoState } from './state';
import { MAX_WEBHOOKS, validateSubscription, webhookJson, type WebhookSetting } from './webhook-subscriptions';

/** Kommo's largest page of events (the Russian reference says 100; the English one 250). */
export const EVENTS_MAX_LIMIT = 100;

function unix(v: unknown): number | undefined {
  const n = Number.parseInt(firstString(v) ?? '', 10);
  return Number.isFinite(n) ? n : undefined;
}

export function registerKommoFeedRoutes(app: FastifyInstance, state: KommoState, withAccount: WithAccount): void {
  app.get('/:subdomain/api/v4/webhooks', withAccount((req, reply, account) => {
    const destination = firstString(req.query['filter[destination]']);
    const hooks = state.feedOf(account).hooks.list(destination);
    if (hooks.length === 0) return noContent(reply);
    return hal(reply, { _total_items: hooks.length, _embedded: { webhooks: hooks.map((w) => webhookJson(w, account.id)) } });
  }));

  app.post('/:subdomain/api/v4/webhooks', withAccount((req, reply, account) => {
    const errors = validateSubscription(req.body);
    if (errors.length > 0) return refuse(reply, [{ request_id: '0', errors }]);
    const body = req.body as { destination: string; settings: WebhookSetting[]; sort?: number };
    const hooks = state.feedOf(account).hooks;
    if (hooks.count >= MAX_WEBHOOKS && hooks.list(body.destination).length === 0) {
      return problem(reply, 400, `An account has at most ${MAX_WEBHOOKS} webhooks`);
    }
    return hal(reply, webhookJson(hooks.upsert(body.destination, body.settings, body.sort), account.id));
  }));

  app.delete('/:subdomain/api/v4/webhooks', withAccount((req, reply, account) => {
    const destination = (req.body as { destination?: unknown } | undefined)?.destination;
    if (typeof destination !== 'string' || destination === '') {
      return refuse(reply, [{ request_id: '0', errors: [{ code: 'NotBlank', path: 'destination', detail: 'This value should not be blank.' }] }]);
    }
    if (!state.feedOf(account).hooks.remove(destination)) return problem(reply, 404, 'Webhook not found');
    return noContent(reply);
  }));

  app.get('/:subdomain/api/v4/events', withAccount((req, reply, account) => {
    const paging = parsePaging(req.query);
    paging.limit = Math.min(paging.limit, EVENTS_MAX_LIMIT);
    paging.offset = (paging.page - 1) * paging.limit;
    const q = req.query;
    // filter[created_at]=T alone means "from T", as in Kommo.
    const createdAt = q['filter[created_at]'];
    const query: EventQuery = {
      ids: listParam(q, 'filter[id]'),
      types: listParam(q, 'filter[type]'),
      entities: listParam(q, 'filter[entity]'),
      entityIds: numbersParam(q, 'filter[entity_id]'),
      createdBy: numbersParam(q, 'filter[created_by]'),
      from: unix(q['filter[created_at][from]']) ?? unix(createdAt),
      to: unix(q['filter[created_at][to]']),
    };
    const matching = state.feedOf(account).events.query(query);
    const page = matching.slice(paging.offset, paging.offset + paging.limit);
    if (page.length === 0) return noContent(reply);
    const self = `${origin(req)}/${account.subdomain}`;
    return hal(reply, {
      _page: paging.page,
      _links: pageLinks(`${self}/api/v4/events`, rawQuery(req), paging, page.length),
      _embedded: { events: page.map((e) => eventJson(e, account.id, self)) },
    });
  }));

  app.get('/:subdomain/api/v4/events/:id', withAccount((req, reply, account) => {
    const event = state.feedOf(account).events.byId(req.params.id ?? '');
    if (!event) return noContent(reply);
    return hal(reply, eventJson(event, account.id, `${origin(req)}/${account.subdomain}`));
  }));
}
