import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { idSchema, okSchema } from '@masivo/contract/common';
import {
  addBlacklistSchema,
  blacklistCheckQuerySchema,
  blacklistCheckResponseSchema,
  blacklistEntrySchema,
  blacklistSearchQuerySchema,
} from '@masivo/contract/blacklist';
import { accountParamsSchema } from '@masivo/contract/contacts';
import { createBlacklistService } from '../../services/blacklist/blacklist-service';

/** Spec §7 "Blacklist", under /api/blacklist. */
export default async function blacklistRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const service = createBlacklistService(app.ctx.db);
  const tags = ['blacklist'];

  app.get('/:accountId', { config: { permission: 'contacts.view', scope: { params: { accountId: 'kommo' } } }, schema: { tags, params: accountParamsSchema, response: { 200: z.array(blacklistEntrySchema) } } }, (req) =>
    service.list(req.orgId, req.params.accountId),
  );

  app.post(
    '/:accountId',
    { config: { permission: 'blacklist.add', scope: { params: { accountId: 'kommo' } } }, schema: { tags, params: accountParamsSchema, body: addBlacklistSchema, response: { 201: blacklistEntrySchema } } },
    async (req, reply) => reply.code(201).send(await service.add(req.orgId, req.params.accountId, req.body)),
  );

  app.get(
    '/:accountId/search',
    { config: { permission: 'contacts.view', scope: { params: { accountId: 'kommo' } } }, schema: { tags, params: accountParamsSchema, querystring: blacklistSearchQuerySchema, response: { 200: z.array(blacklistEntrySchema) } } },
    (req) => service.search(req.orgId, req.params.accountId, req.query.query),
  );

  app.get(
    '/:accountId/check',
    { config: { permission: 'contacts.view', scope: { params: { accountId: 'kommo' } } }, schema: { tags, params: accountParamsSchema, querystring: blacklistCheckQuerySchema, response: { 200: blacklistCheckResponseSchema } } },
    (req) => service.check(req.orgId, req.params.accountId, req.query.phone),
  );

  app.delete(
    '/:accountId/:blacklistId',
    { config: { permission: 'blacklist.remove', scope: { params: { accountId: 'kommo' } } }, schema: { tags, params: z.object({ accountId: idSchema, blacklistId: idSchema }), response: { 200: okSchema } } },
    async (req) => {
      await service.remove(req.orgId, req.params.accountId, req.params.blacklistId);
      return { success: true as const, message: 'Número removido de blacklist exitosamente' };
    },
  );
}
