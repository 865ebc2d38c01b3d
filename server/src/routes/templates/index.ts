import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { idParamsSchema, idSchema, okSchema } from '@masivo/contract/common';
import {
  createTemplateResponseSchema,
  createTemplateSchema,
  kommoCustomFieldSchema,
  syncAllResultSchema,
  syncResultSchema,
  syncTemplatesSchema,
  templateSchema,
  templateStatusSummarySchema,
} from '@masivo/contract/templates';
import { createTemplateService } from '../../services/templates/template-service';

const tags = ['templates'];
const accountParams = z.object({ accountId: idSchema });
const variableSlots = z.object({
  templateId: z.number(),
  variables: z.array(z.object({ key: z.string(), component: z.enum(['header', 'body']), placeholder: z.number(), label: z.string() })),
});

export default async function templateRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const service = createTemplateService(app.ctx);

  app.post('/sync', { schema: { tags, body: syncTemplatesSchema, response: { 200: syncResultSchema } } }, (req) =>
    service.sync(req.userId, req.body.whatsapp_account_id),
  );

  app.post('/sync-all', { schema: { tags, response: { 200: syncAllResultSchema } } }, (req) => service.syncAll(req.userId));

  app.post(
    '/create',
    { schema: { tags, body: createTemplateSchema, response: { 201: createTemplateResponseSchema } } },
    async (req, reply) => reply.code(201).send(await service.create(req.userId, req.body)),
  );

  app.get('/account/:accountId', { schema: { tags, params: accountParams, response: { 200: z.array(templateSchema) } } }, (req) =>
    service.listByAccount(req.userId, req.params.accountId),
  );

  app.get(
    '/account/:accountId/status',
    { schema: { tags, params: accountParams, response: { 200: templateStatusSummarySchema } } },
    (req) => service.statusSummary(req.userId, req.params.accountId),
  );

  app.get(
    '/kommo/:accountId/custom-fields',
    { schema: { tags, params: accountParams, response: { 200: z.array(kommoCustomFieldSchema) } } },
    (req) => service.kommoCustomFields(req.userId, req.params.accountId),
  );

  app.get('/:id', { schema: { tags, params: idParamsSchema, response: { 200: templateSchema } } }, (req) =>
    service.get(req.userId, req.params.id),
  );

  app.get('/:id/variables', { schema: { tags, params: idParamsSchema, response: { 200: variableSlots } } }, (req) =>
    service.variables(req.userId, req.params.id),
  );

  app.post('/:id/submit', { schema: { tags, params: idParamsSchema, response: { 200: createTemplateResponseSchema } } }, (req) =>
    service.submit(req.userId, req.params.id),
  );

  app.delete('/:id', { schema: { tags, params: idParamsSchema, response: { 200: okSchema } } }, (req) =>
    service.remove(req.userId, req.params.id),
  );
}
