import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { idParamsSchema } from '@masivo/contract/common';
import { campaignStatsQuerySchema, campaignStatsSchema } from '@masivo/contract/stats';
import { campaignStats } from '../../services/campaigns/campaign-stats';

const tags = ['campaigns'];

/** A campaign's charts (timeline, funnel, failures by Meta code), read from the replica (`readDb`). */
export default async function campaignStatsRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { ctx } = app;

  app.get(
    '/:id/stats',
    { config: { permission: 'campaigns.view', scope: { params: { id: 'campaign' } } }, schema: { tags, params: idParamsSchema, querystring: campaignStatsQuerySchema, response: { 200: campaignStatsSchema } } },
    (request) => campaignStats(ctx.db, request.orgId, request.params.id, request.query, ctx.readDb),
  );
}
