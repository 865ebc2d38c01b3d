import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { preflightRequestSchema, preflightSchema } from '@masivo/contract/preflight';
import { idParamsSchema } from '@masivo/contract/common';
import { preflightForCampaign, preflightForPayload } from '../../services/campaigns/preflight';

const tags = ['campaigns'];

/** The pre-flight of a campaign being built (POST) or saved (GET). */
export default async function preflightRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { ctx } = app;

  app.post('/preflight', { schema: { tags, body: preflightRequestSchema, response: { 200: preflightSchema } } }, (request) =>
    preflightForPayload(ctx.db, request.userId, request.body),
  );

  app.get('/:id/preflight', { schema: { tags, params: idParamsSchema, response: { 200: preflightSchema } } }, (request) =>
    preflightForCampaign(ctx.db, request.userId, request.params.id),
  );
}
