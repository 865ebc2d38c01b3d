import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { idParamsSchema, idSchema, okSchema } from '@masivo/contract/common';
import {
  createTemplateResponseSchema,
  createTemplateSchema,
  kommoCustomFieldSchema,
  MEDIA_SAMPLE_MAX_BYTES,
  mediaSampleQuerySchema,
  mediaSampleResponseSchema,
  syncAllResultSchema,
  syncResultSchema,
  syncTemplatesSchema,
  templateSchema,
  templateStatusSummarySchema,
} from '@masivo/contract/templates';
import { templateSlotSchema } from '@masivo/contract/variables';
import { uploadMediaSample } from '../../services/templates/template-media-sample';
import { createTemplateService } from '../../services/templates/template-service';

const tags = ['templates'];
const accountParams = z.object({ accountId: idSchema });
const variableSlots = z.object({
  templateId: z.number(),
  variables: z.array(templateSlotSchema),
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

  // The sample's bytes are the body: a child scope keeps the raw parser off the JSON routes.
  await app.register(async (child) => {
    const raw = child.withTypeProvider<ZodTypeProvider>();
    raw.removeAllContentTypeParsers();
    raw.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MEDIA_SAMPLE_MAX_BYTES }, (_req, body, done) => done(null, body));
    raw.post(
      '/media-sample',
      {
        bodyLimit: MEDIA_SAMPLE_MAX_BYTES,
        schema: { tags, querystring: mediaSampleQuerySchema, response: { 200: mediaSampleResponseSchema } },
      },
      (req) => uploadMediaSample(app.ctx, req.userId, req.query, req.headers['content-type'], req.body),
    );
  });

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
