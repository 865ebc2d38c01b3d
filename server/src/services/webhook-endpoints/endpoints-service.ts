import { sql } from 'drizzle-orm';
import {
  WEBHOOK_TEST_EVENT,
  type CreateWebhookEndpointInput,
  type UpdateWebhookEndpointInput,
  type WebhookDelivery,
  type WebhookDeliveryPage,
  type WebhookEndpoint,
  type WebhookEndpointWithSecret,
} from '@masivo/contract/webhooks';
import type { AppContext } from '../../context';
import { isoOf, rowsOf } from '../../db/sql';
import { conflict, notFound } from '../../lib/errors';
import { newMessageId, newWebhookSecret } from './webhook-signature';
import type { HostResolver } from '../../lib/blocked-address';
import { checkWebhookUrl } from './webhook-url';

/**
 * An organisation's outbound webhook endpoints: every query names the organisation (the
 * tenant), so another organisation's id answers 404 as one that does not exist. The secret is
 * sealed at rest and returned only by create and rotate.
 */
export const MAX_ENDPOINTS_PER_ORG = 20;
/** How long the secret before a rotation keeps signing beside the new one. */
export const ROTATION_OVERLAP_HOURS = 24;
const NOT_FOUND = 'Webhook no encontrado';

const VIEW = sql`id, url, description, events, enabled, disabled_reason,
  ${isoOf(sql`disabled_at`)} as disabled_at, ${isoOf(sql`failing_since`)} as failing_since,
  case when previous_secret_expires_at > now() then ${isoOf(sql`previous_secret_expires_at`)} end as previous_secret_expires_at,
  ${isoOf(sql`created_at`)} as created_at, ${isoOf(sql`updated_at`)} as updated_at`;

type Row = Omit<WebhookEndpoint, 'id'> & { id: number | string };
const view = (r: Row): WebhookEndpoint => ({ ...r, id: Number(r.id) });

export interface EndpointOptions {
  /** DNS for the URL check (tests point names anywhere); the system's by default. */
  resolve?: HostResolver;
}

export function createWebhookEndpointsService(ctx: AppContext, opts: EndpointOptions = {}) {
  const { db } = ctx;
  const allowPrivate = ctx.config.WEBHOOKS_ALLOW_PRIVATE_HOSTS;
  const checkUrl = (url: string) => checkWebhookUrl(url, { allowPrivate, resolve: opts.resolve });

  async function get(orgId: number, id: number): Promise<WebhookEndpoint> {
    const [row] = await rowsOf<Row>(db, sql`select ${VIEW} from webhook_endpoints where id = ${id} and organization_id = ${orgId}`);
    if (!row) throw notFound(NOT_FOUND);
    return view(row);
  }

  return {
    get,

    async list(orgId: number): Promise<WebhookEndpoint[]> {
      const rows = await rowsOf<Row>(db, sql`select ${VIEW} from webhook_endpoints where organization_id = ${orgId} order by id`);
      return rows.map(view);
    },

    async create(orgId: number, userId: number | null, input: CreateWebhookEndpointInput & { events: string[] }): Promise<WebhookEndpointWithSecret> {
      const url = await checkUrl(input.url);
      const secret = newWebhookSecret();
      const [row] = await rowsOf<Row>(
        db,
        sql`insert into webhook_endpoints (organization_id, url, description, events, secret_sealed, created_by_user_id)
            select ${orgId}, ${url}, ${input.description ?? null}, ${`{${input.events.join(',')}}`}::text[], ${ctx.secrets.seal(secret)}, ${userId || null}
            where (select count(*) from webhook_endpoints where organization_id = ${orgId}) < ${MAX_ENDPOINTS_PER_ORG}
            returning ${VIEW}`,
      );
      if (!row) throw conflict(`Una organización puede tener como máximo ${MAX_ENDPOINTS_PER_ORG} webhooks`);
      ctx.webhookSubscriptions.forget(orgId);
      return { ...view(row), secret };
    },

    /** Returns the endpoint before and after, for the activity log. Enabling clears the reason and the failure streak. */
    async update(orgId: number, id: number, input: UpdateWebhookEndpointInput & { events?: string[] }) {
      const before = await get(orgId, id);
      const url = input.url === undefined ? null : await checkUrl(input.url);
      const [row] = await rowsOf<Row>(
        db,
        sql`update webhook_endpoints set
              url = coalesce(${url}, url),
              events = coalesce(${input.events ? `{${input.events.join(',')}}` : null}::text[], events),
              description = case when ${input.description !== undefined} then ${input.description ?? null} else description end,
              enabled = coalesce(${input.enabled ?? null}::boolean, enabled),
              disabled_reason = case when ${input.enabled ?? null}::boolean is not null then null else disabled_reason end,
              disabled_at = case when ${input.enabled === false} and enabled then now()
                                 when ${input.enabled === true} then null else disabled_at end,
              failing_since = case when ${input.enabled === true} then null else failing_since end,
              updated_at = now()
            where id = ${id} and organization_id = ${orgId}
            returning ${VIEW}`,
      );
      if (!row) throw notFound(NOT_FOUND);
      ctx.webhookSubscriptions.forget(orgId);
      if (input.enabled) ctx.signals.webhookDeliveryQueued();
      return { before, after: view(row) };
    },

    async remove(orgId: number, id: number): Promise<WebhookEndpoint> {
      const [row] = await rowsOf<Row>(db, sql`delete from webhook_endpoints where id = ${id} and organization_id = ${orgId} returning ${VIEW}`);
      if (!row) throw notFound(NOT_FOUND);
      ctx.webhookSubscriptions.forget(orgId);
      return view(row);
    },

    /** A new secret, shown once; the current one keeps signing beside it for 24 h. */
    async rotateSecret(orgId: number, id: number): Promise<WebhookEndpointWithSecret> {
      const secret = newWebhookSecret();
      const [row] = await rowsOf<Row>(
        db,
        sql`update webhook_endpoints set previous_secret_sealed = secret_sealed,
              previous_secret_expires_at = now() + make_interval(hours => ${ROTATION_OVERLAP_HOURS}),
              secret_sealed = ${ctx.secrets.seal(secret)}, updated_at = now()
            where id = ${id} and organization_id = ${orgId}
            returning ${VIEW}`,
      );
      if (!row) throw notFound(NOT_FOUND);
      return { ...view(row), secret };
    },

    async deliveries(orgId: number, id: number, query: { state?: string; cursor?: string; limit: number }): Promise<WebhookDeliveryPage> {
      await get(orgId, id);
      const rows = await rowsOf<DeliveryRow>(
        db,
        sql`select d.id::text as id, d.msg_id, d.event_type, d.state, d.attempts,
                   case when d.state = 'pending' then ${isoOf(sql`d.next_attempt_at`)} end as next_attempt_at,
                   d.last_status_code, d.last_error, ${isoOf(sql`d.created_at`)} as created_at, ${isoOf(sql`d.finished_at`)} as finished_at,
                   d.body, coalesce(a.log, '[]'::json) as attempt_log
            from webhook_deliveries d
            left join lateral (
              select json_agg(json_build_object('at', ${isoOf(sql`x.at`)}, 'status_code', x.status_code, 'duration_ms', x.duration_ms,
                                                'response_excerpt', x.response_excerpt, 'error', x.error) order by x.id desc) as log
              from (select * from webhook_delivery_attempts where delivery_id = d.id order by id desc limit 10) x) a on true
            where d.endpoint_id = ${id} and d.organization_id = ${orgId}
              ${query.state ? sql`and d.state = ${query.state}` : sql``}
              ${query.cursor ? sql`and d.id < ${query.cursor}::bigint` : sql``}
            order by d.id desc
            limit ${query.limit + 1}`,
      );
      const items = rows.slice(0, query.limit).map(deliveryView);
      return { items, next_cursor: rows.length > query.limit ? items[items.length - 1]!.id : null };
    },

    /** «Enviar evento de prueba»: a `webhook.test` delivery for this endpoint, sent by the delivery worker. */
    async sendTest(orgId: number, id: number): Promise<WebhookDelivery> {
      const endpoint = await get(orgId, id);
      if (!endpoint.enabled) throw conflict('El webhook está desactivado: actívalo antes de enviar un evento de prueba');
      const body = JSON.stringify({
        type: WEBHOOK_TEST_EVENT,
        timestamp: new Date().toISOString(),
        data: { endpoint_id: id, message: 'Evento de prueba de Masivo' },
      });
      const [row] = await rowsOf<{ id: string }>(
        db,
        sql`insert into webhook_deliveries (endpoint_id, organization_id, msg_id, event_type, body)
            values (${id}, ${orgId}, ${newMessageId()}, ${WEBHOOK_TEST_EVENT}, ${body}) returning id::text as id`,
      );
      ctx.signals.webhookDeliveryQueued();
      return this.delivery(orgId, id, row!.id);
    },

    /** «Reenviar»: the same delivery (same webhook-id and body) is due again now, with a fresh retry schedule. */
    async resend(orgId: number, id: number, deliveryId: number): Promise<WebhookDelivery> {
      const endpoint = await get(orgId, id);
      if (!endpoint.enabled) throw conflict('El webhook está desactivado: actívalo antes de reenviar');
      const rows = await rowsOf(
        db,
        sql`update webhook_deliveries set state = 'pending', attempts = 0, next_attempt_at = now(), finished_at = null,
                   lease_owner = null, lease_expires_at = null
            where id = ${deliveryId} and endpoint_id = ${id} and organization_id = ${orgId}
            returning id`,
      );
      if (!rows.length) throw notFound('Entrega no encontrada');
      ctx.signals.webhookDeliveryQueued();
      return this.delivery(orgId, id, String(deliveryId));
    },

    async delivery(orgId: number, id: number, deliveryId: string): Promise<WebhookDelivery> {
      const page = await this.deliveries(orgId, id, { cursor: String(BigInt(deliveryId) + 1n), limit: 1 });
      const found = page.items[0];
      if (!found || found.id !== deliveryId) throw notFound('Entrega no encontrada');
      return found;
    },
  };
}

interface DeliveryRow extends Omit<WebhookDelivery, 'attempt_log' | 'attempts' | 'last_status_code'> {
  attempts: number | string;
  last_status_code: number | string | null;
  attempt_log: WebhookDelivery['attempt_log'] | string;
}

function deliveryView(r: DeliveryRow): WebhookDelivery {
  const log = typeof r.attempt_log === 'string' ? (JSON.parse(r.attempt_log) as WebhookDelivery['attempt_log']) : r.attempt_log;
  return {
    ...r,
    attempts: Number(r.attempts),
    last_status_code: r.last_status_code === null ? null : Number(r.last_status_code),
    attempt_log: log.map((a) => ({ ...a, status_code: a.status_code === null ? null : Number(a.status_code), duration_ms: Number(a.duration_ms) })),
  };
}

export type WebhookEndpointsService = ReturnType<typeof createWebhookEndpointsService>;
