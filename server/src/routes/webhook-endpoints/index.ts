import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { okSchema } from '@masivo/contract/common';
import {
  createWebhookEndpointSchema,
  updateWebhookEndpointSchema,
  webhookDeliveriesQuerySchema,
  webhookDeliveryPageSchema,
  webhookDeliveryParamsSchema,
  webhookDeliverySchema,
  webhookEndpointParamsSchema,
  webhookEndpointSchema,
  webhookEndpointWithSecretSchema,
} from '@masivo/contract/webhooks';
import { logActivity } from '../request-actor';
import { changesOf } from '../../services/activity/activity-log';
import { createWebhookEndpointsService } from '../../services/webhook-endpoints/endpoints-service';

/**
 * Outbound webhook endpoints of the organisation, under /api/webhook-endpoints. Every route needs
 * `webhooks.manage` (owners and administrators, or an API key with that scope); the secret is
 * answered only by the create and the rotation, never again.
 */
export default async function webhookEndpointRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const service = createWebhookEndpointsService(app.ctx);
  const tags = ['webhook-endpoints'];
  // Other systems manage their endpoints too, with an API key holding `webhooks:manage`.
  const config = { permission: 'webhooks.manage' as const, apiScope: 'webhooks:manage' as const };
  const target = (e: { id: number; url: string }) => ({ type: 'webhook_endpoint', id: e.id, name: e.url });

  app.get('/', { config, schema: { tags, response: { 200: z.array(webhookEndpointSchema) } } }, (req) => service.list(req.orgId));

  app.post(
    '/',
    { config, schema: { tags, body: createWebhookEndpointSchema, response: { 201: webhookEndpointWithSecretSchema } } },
    async (req, reply) => {
      const created = await service.create(req.orgId, req.userId, req.body);
      const { secret: _secret, ...shown } = created;
      await logActivity(req, { action: 'webhook.created', target: target(created), changes: changesOf(null, shown) });
      return reply.code(201).send(created);
    },
  );

  app.patch(
    '/:id',
    { config, schema: { tags, params: webhookEndpointParamsSchema, body: updateWebhookEndpointSchema, response: { 200: webhookEndpointSchema } } },
    async (req) => {
      const { before, after } = await service.update(req.orgId, req.params.id, req.body);
      await logActivity(req, { action: 'webhook.updated', target: target(after), changes: changesOf(before, after) });
      return after;
    },
  );

  app.delete('/:id', { config, schema: { tags, params: webhookEndpointParamsSchema, response: { 200: okSchema } } }, async (req) => {
    const removed = await service.remove(req.orgId, req.params.id);
    await logActivity(req, { action: 'webhook.deleted', target: target(removed) });
    return { success: true as const, message: 'Webhook eliminado' };
  });

  app.post(
    '/:id/rotate-secret',
    { config, schema: { tags, params: webhookEndpointParamsSchema, response: { 200: webhookEndpointWithSecretSchema } } },
    async (req) => {
      const rotated = await service.rotateSecret(req.orgId, req.params.id);
      await logActivity(req, { action: 'webhook.secret_rotated', target: target(rotated), detail: { previous_valid_until: rotated.previous_secret_expires_at } });
      return rotated;
    },
  );

  app.get(
    '/:id/deliveries',
    { config, schema: { tags, params: webhookEndpointParamsSchema, querystring: webhookDeliveriesQuerySchema, response: { 200: webhookDeliveryPageSchema } } },
    (req) => service.deliveries(req.orgId, req.params.id, req.query),
  );

  app.post(
    '/:id/test',
    { config, schema: { tags, params: webhookEndpointParamsSchema, response: { 202: webhookDeliverySchema } } },
    async (req, reply) => reply.code(202).send(await service.sendTest(req.orgId, req.params.id)),
  );

  app.post(
    '/:id/deliveries/:deliveryId/resend',
    { config, schema: { tags, params: webhookDeliveryParamsSchema, response: { 202: webhookDeliverySchema } } },
    async (req, reply) => reply.code(202).send(await service.resend(req.orgId, req.params.id, req.params.deliveryId)),
  );
}
