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

  app.get('/', { schema: { tags, response: { 200: z.array(whatsappAccountSchema) } } }, (req) => accounts.list(req.userId));

  app.get('/stats', { schema: { tags, response: { 200: whatsappAccountStatsSchema } } }, (req) => accounts.stats(req.userId));

  app.get('/:id', { schema: { tags, params: idParamsSchema, response: { 200: whatsappAccountSchema } } }, (req) =>
    accounts.get(req.userId, req.params.id),
  );

  app.post(
    '/',
    { schema: { tags, body: createWhatsAppAccountSchema, response: { 201: whatsappAccountSchema } } },
    async (req, reply) => reply.code(201).send(await accounts.create(req.userId, req.body)),
  );

  app.put(
    '/:id',
    { schema: { tags, params: idParamsSchema, body: updateWhatsAppAccountSchema, response: { 200: whatsappAccountSchema } } },
    (req) => accounts.update(req.userId, req.params.id, req.body),
  );

  app.delete('/:id', { schema: { tags, params: idParamsSchema, response: { 200: okSchema } } }, (req) =>
    accounts.remove(req.userId, req.params.id),
  );

  app.post(
    '/:id/test',
    { schema: { tags, params: idParamsSchema, response: { 200: testWhatsAppAccountResponseSchema } } },
    (req) => accounts.test(req.userId, req.params.id),
  );

  app.post('/:id/refresh', { schema: { tags, params: idParamsSchema, response: { 200: whatsappAccountSchema } } }, (req) =>
    accounts.refresh(req.userId, req.params.id),
  );
}
