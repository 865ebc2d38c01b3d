import { updateTemplateTtlSchema } from '@masivo/contract/marketing-messages';
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

  app.post('/sync', { config: { permission: 'templates.manage', scope: { body: { whatsapp_account_id: 'whatsapp' } } }, schema: { tags, body: syncTemplatesSchema, response: { 200: syncResultSchema } } }, (req) =>
    service.sync(req.orgId, req.body.whatsapp_account_id),
  );

  app.post('/sync-all', { config: { permission: 'templates.manage', scope: {} }, schema: { tags, response: { 200: syncAllResultSchema } } }, (req) => service.syncAll(req.orgId, req.visible ? [...req.visible.whatsapp] : null));

  app.post(
    '/create',
    { config: { permission: 'templates.manage', scope: { body: { whatsapp_account_id: 'whatsapp', kommo_account_id: 'kommo' } } }, schema: { tags, body: createTemplateSchema, response: { 201: createTemplateResponseSchema } } },
    async (req, reply) => reply.code(201).send(await service.create(req.orgId, req.body, req.userId)),
  );

  // The sample's bytes are the body: a child scope keeps the raw parser off the JSON routes.
  await app.register(async (child) => {
    const raw = child.withTypeProvider<ZodTypeProvider>();
    raw.removeAllContentTypeParsers();
    raw.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MEDIA_SAMPLE_MAX_BYTES }, (_req, body, done) => done(null, body));
    raw.post(
      '/media-sample',
      {
        config: { permission: 'templates.manage', scope: { query: { whatsapp_account_id: 'whatsapp' } } },
        bodyLimit: MEDIA_SAMPLE_MAX_BYTES,
        schema: { tags, querystring: mediaSampleQuerySchema, response: { 200: mediaSampleResponseSchema } },
      },
      (req) => uploadMediaSample(app.ctx, req.orgId, req.query, req.headers['content-type'], req.body),
    );
  });

  app.get('/account/:accountId', { config: { permission: 'campaigns.view', scope: { params: { accountId: 'whatsapp' } } }, schema: { tags, params: accountParams, response: { 200: z.array(templateSchema) } } }, (req) =>
    service.listByAccount(req.orgId, req.params.accountId),
  );

  app.get(
    '/account/:accountId/status',
    { config: { permission: 'campaigns.view', scope: { params: { accountId: 'whatsapp' } } }, schema: { tags, params: accountParams, response: { 200: templateStatusSummarySchema } } },
    (req) => service.statusSummary(req.orgId, req.params.accountId),
  );

  app.get(
    '/kommo/:accountId/custom-fields',
    { config: { permission: 'campaigns.view', scope: { params: { accountId: 'kommo' } } }, schema: { tags, params: accountParams, response: { 200: z.array(kommoCustomFieldSchema) } } },
    (req) => service.kommoCustomFields(req.orgId, req.params.accountId),
  );

  app.get('/:id', { config: { permission: 'campaigns.view', scope: { params: { id: 'template' } } }, schema: { tags, params: idParamsSchema, response: { 200: templateSchema } } }, (req) =>
    service.get(req.orgId, req.params.id),
  );

  app.get('/:id/variables', { config: { permission: 'campaigns.view', scope: { params: { id: 'template' } } }, schema: { tags, params: idParamsSchema, response: { 200: variableSlots } } }, (req) =>
    service.variables(req.orgId, req.params.id),
  );

  app.post('/:id/submit', { config: { permission: 'templates.manage', scope: { params: { id: 'template' } } }, schema: { tags, params: idParamsSchema, response: { 200: createTemplateResponseSchema } } }, (req) =>
    service.submit(req.orgId, req.params.id),
  );

  app.patch(
    '/:id/ttl',
    { config: { permission: 'templates.manage', scope: { params: { id: 'template' } } }, schema: { tags, params: idParamsSchema, body: updateTemplateTtlSchema, response: { 200: templateSchema } } },
    (req) => service.setTtl(req.orgId, req.params.id, req.body.message_send_ttl_seconds),
  );

  app.delete('/:id', { config: { permission: 'templates.manage', scope: { params: { id: 'template' } } }, schema: { tags, params: idParamsSchema, response: { 200: okSchema } } }, (req) =>
    service.remove(req.orgId, req.params.id),
  );
}
