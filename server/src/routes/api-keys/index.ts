import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { apiKeySchema, createApiKeySchema, createdApiKeySchema } from '@masivo/contract/api-keys';
import { idParamsSchema } from '@masivo/contract/common';
import { logActivity } from '../request-actor';

const tags = ['api-keys'];

/**
 * The organisation's API keys («Claves de API»): owners and administrators create, list and
 * revoke them. The whole key is in the creation's answer only. Mounted under /api.
 */
export default async function apiKeyRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { apiKeys } = app.ctx;
  const config = { permission: 'api_keys.manage' } as const;

  app.get('/api-keys', { config, schema: { tags, response: { 200: z.array(apiKeySchema) } } }, (request) => apiKeys.list(request.orgId));

  app.post('/api-keys', { config, schema: { tags, body: createApiKeySchema, response: { 201: createdApiKeySchema } } }, async (request, reply) => {
    const created = await apiKeys.create(
      { orgId: request.orgId, userId: request.userId, role: request.role, scope: request.scope },
      request.body,
    );
    const { key: _shownOnce, ...kept } = created;
    await logActivity(request, {
      action: 'api_key.create',
      target: { type: 'api_key', id: created.id, name: created.name },
      changes: { after: { name: kept.name, scopes: kept.scopes, whatsapp_account_ids: kept.whatsapp_account_ids, expires_at: kept.expires_at, rate_limit_per_minute: kept.rate_limit_per_minute } },
    });
    return reply.code(201).send(created);
  });

  app.delete('/api-keys/:id', { config, schema: { tags, params: idParamsSchema, response: { 200: apiKeySchema } } }, async (request) => {
    const before = await apiKeys.get(request.orgId, request.params.id);
    const after = await apiKeys.revoke(request.orgId, request.params.id, request.userId);
    if (!before.revoked_at) await logActivity(request, { action: 'api_key.revoke', target: { type: 'api_key', id: after.id, name: after.name } });
    return after;
  });
}
