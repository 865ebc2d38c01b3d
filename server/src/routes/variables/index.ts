import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { idSchema } from '@masivo/contract/common';
import {
  availableVariableSchema,
  previewResponseSchema,
  previewSchema,
  saveMappingsSchema,
  templateVariablesResponseSchema,
  testMappingResponseSchema,
  testMappingSchema,
  variableMappingSchema,
} from '@masivo/contract/variables';
import { createVariableService } from '../../services/variables/variable-service';
import { voidApprovalsForTemplate } from '../../services/campaigns/campaign-approvals';
import { actorOf } from '../request-actor';

const tags = ['variables'];
const accountParams = z.object({ accountId: idSchema });
const templateParams = z.object({ templateId: idSchema });

export default async function variableRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const service = createVariableService(app.ctx);

  app.get(
    '/template/:templateId',
    { config: { permission: 'campaigns.view', scope: { params: { templateId: 'template' } } }, schema: { tags, params: templateParams, response: { 200: templateVariablesResponseSchema } } },
    (req) => service.forTemplate(req.orgId, req.params.templateId),
  );

  app.get(
    '/template/:templateId/mappings',
    { config: { permission: 'campaigns.view', scope: { params: { templateId: 'template' } } }, schema: { tags, params: templateParams, response: { 200: z.array(variableMappingSchema) } } },
    (req) => service.getMappings(req.orgId, req.params.templateId),
  );

  app.post(
    '/template/:templateId/mappings',
    { config: { permission: 'templates.manage', scope: { params: { templateId: 'template' } } },
      schema: {
        tags,
        params: templateParams,
        body: saveMappingsSchema,
        response: { 200: z.object({ success: z.boolean(), message: z.string(), mappings: z.array(variableMappingSchema) }) },
      },
    },
    async (req) => {
      const saved = await service.saveMappings(req.orgId, req.params.templateId, req.body);
      // The mapping is part of what an approval covers: campaigns waiting with it ask again.
      await voidApprovalsForTemplate(app.ctx, actorOf(req), req.params.templateId);
      return saved;
    },
  );

  app.post(
    '/template/:templateId/preview',
    { config: { permission: 'campaigns.view', scope: { params: { templateId: 'template' } } }, schema: { tags, params: templateParams, body: previewSchema, response: { 200: previewResponseSchema } } },
    (req) => service.preview(req.orgId, req.params.templateId, req.body.sampleData),
  );

  app.post(
    '/template/:templateId/test',
    { config: { permission: 'templates.manage', scope: { params: { templateId: 'template' } } }, schema: { tags, params: templateParams, body: testMappingSchema, response: { 200: testMappingResponseSchema } } },
    (req) => service.test(req.orgId, req.params.templateId, req.body.contactId),
  );

  // Registered last: a static "/template/..." path wins over this parameter anyway.
  app.get('/:accountId/available', { config: { permission: 'campaigns.view', scope: { params: { accountId: 'kommo' } } }, schema: { tags, params: accountParams, response: { 200: z.array(availableVariableSchema) } } }, (req) =>
    service.available(req.orgId, req.params.accountId),
  );
}
