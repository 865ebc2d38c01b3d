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
import { logActivity } from '../request-actor';
import { createBlacklistService } from '../../services/blacklist/blacklist-service';

/** Spec §7 "Blacklist", under /api/blacklist. */
export default async function blacklistRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const service = createBlacklistService(app.ctx.db, app.ctx.readDb);
  const tags = ['blacklist'];

  app.get('/:accountId', { config: { permission: 'contacts.view', scope: { params: { accountId: 'kommo' } } }, schema: { tags, params: accountParamsSchema, response: { 200: z.array(blacklistEntrySchema) } } }, (req) =>
    service.list(req.orgId, req.params.accountId),
  );

  app.post(
    '/:accountId',
    { config: { permission: 'blacklist.add', scope: { params: { accountId: 'kommo' } } }, schema: { tags, params: accountParamsSchema, body: addBlacklistSchema, response: { 201: blacklistEntrySchema } } },
    async (req, reply) => {
      const entry = await service.add(req.orgId, req.params.accountId, req.body, req.userId);
      await logActivity(req, {
        action: 'blacklist.add',
        target: { type: 'blacklist', id: entry.id, name: entry.phone },
        detail: { kommo_account_id: req.params.accountId, reason: entry.reason },
      });
      return reply.code(201).send(entry);
    },
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
      const { phone } = await service.remove(req.orgId, req.params.accountId, req.params.blacklistId);
      await logActivity(req, {
        action: 'blacklist.remove',
        target: { type: 'blacklist', id: req.params.blacklistId, name: phone },
        detail: { kommo_account_id: req.params.accountId },
      });
      return { success: true as const, message: 'Número removido de blacklist exitosamente' };
    },
  );
}
