import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { idParamsSchema, okSchema } from '@masivo/contract/common';
import {
  createWhatsAppAccountSchema,
  testWhatsAppAccountResponseSchema,
  updateWhatsAppAccountSchema,
  whatsappAccountSchema,
  whatsappAccountStatsSchema,
} from '@masivo/contract/whatsapp-accounts';
import { createWhatsAppAccountService } from '../../services/whatsapp-accounts/whatsapp-account-service';

const tags = ['whatsapp-accounts'];

export default async function whatsappAccountRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const accounts = createWhatsAppAccountService(app.ctx);

  app.get('/', { config: { permission: 'campaigns.view', scope: { list: { field: 'id', kind: 'whatsapp' } } }, schema: { tags, response: { 200: z.array(whatsappAccountSchema) } } }, (req) => accounts.list(req.orgId));

  app.get('/stats', { config: { permission: 'campaigns.view' }, schema: { tags, response: { 200: whatsappAccountStatsSchema } } }, (req) => accounts.stats(req.orgId));

  app.get('/:id', { config: { permission: 'campaigns.view', scope: { params: { id: 'whatsapp' } } }, schema: { tags, params: idParamsSchema, response: { 200: whatsappAccountSchema } } }, (req) =>
    accounts.get(req.orgId, req.params.id),
  );

  app.post(
    '/',
    { config: { permission: 'connections.manage' }, schema: { tags, body: createWhatsAppAccountSchema, response: { 201: whatsappAccountSchema } } },
    async (req, reply) => reply.code(201).send(await accounts.create(req.orgId, req.body)),
  );

  app.put(
    '/:id',
    { config: { permission: 'connections.manage' }, schema: { tags, params: idParamsSchema, body: updateWhatsAppAccountSchema, response: { 200: whatsappAccountSchema } } },
    (req) => accounts.update(req.orgId, req.params.id, req.body),
  );

  app.delete('/:id', { config: { permission: 'connections.manage' }, schema: { tags, params: idParamsSchema, response: { 200: okSchema } } }, (req) =>
    accounts.remove(req.orgId, req.params.id),
  );

  app.post(
    '/:id/test',
    { config: { permission: 'connections.manage' }, schema: { tags, params: idParamsSchema, response: { 200: testWhatsAppAccountResponseSchema } } },
    (req) => accounts.test(req.orgId, req.params.id),
  );

  app.post('/:id/refresh', { config: { permission: 'connections.manage' }, schema: { tags, params: idParamsSchema, response: { 200: whatsappAccountSchema } } }, (req) =>
    accounts.refresh(req.orgId, req.params.id),
  );
}
