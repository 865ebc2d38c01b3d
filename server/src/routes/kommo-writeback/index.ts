import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { idParamsSchema } from '@masivo/contract/common';
import {
  campaignWritebackSchema,
  kommoPipelineSchema,
  writebackSettingsSchema,
  writebackSettingsViewSchema,
} from '@masivo/contract/kommo-writeback';
import { createWritebackService } from '../../services/kommo-writeback/writeback-service';

/** Write-back to Kommo: the account's settings and pipelines, and a campaign's progress. Mounted under /api. */
export default async function kommoWritebackRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const writeback = createWritebackService(app.ctx);

  app.get(
    '/kommo/accounts/:id/writeback',
    { schema: { tags: ['kommo'], params: idParamsSchema, response: { 200: writebackSettingsViewSchema } } },
    (req) => writeback.settings(req.userId, req.params.id),
  );

  app.put(
    '/kommo/accounts/:id/writeback',
    { schema: { tags: ['kommo'], params: idParamsSchema, body: writebackSettingsSchema, response: { 200: writebackSettingsViewSchema } } },
    (req) => writeback.updateSettings(req.userId, req.params.id, req.body),
  );

  app.get(
    '/kommo/accounts/:id/pipelines',
    { schema: { tags: ['kommo'], params: idParamsSchema, response: { 200: z.array(kommoPipelineSchema) } } },
    (req) => writeback.pipelines(req.userId, req.params.id),
  );

  app.get(
    '/campaigns/:id/kommo-writeback',
    { schema: { tags: ['campaigns'], params: idParamsSchema, response: { 200: campaignWritebackSchema } } },
    (req) => writeback.progress(req.userId, req.params.id),
  );
}
