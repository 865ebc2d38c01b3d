import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  campaignResultsQuerySchema,
  campaignSchema,
  createFollowUpSchema,
  followUpCountQuerySchema,
  followUpCountSchema,
} from '@masivo/contract/campaigns';
import { idParamsSchema } from '@masivo/contract/common';
import { countFollowUp, createFollowUp } from '../../services/campaigns/follow-up';
import { exportResultsCsv, resultsExportPlan, resultsFileName } from '../../services/campaigns/results-export';

const tags = ['campaigns'];

/** A campaign's results as CSV, and "Nueva campaña para…" a group of its recipients. */
export default async function campaignResultsRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { ctx } = app;

  app.get(
    '/:id/results.csv',
    { schema: { tags, params: idParamsSchema, querystring: campaignResultsQuerySchema } },
    async (request, reply) => {
      // Everything that can refuse (missing campaign, bad group) runs before the first byte.
      const { campaign, where } = await resultsExportPlan(ctx.db, request.userId, request.params.id, request.query);
      const stream = Readable.from(exportResultsCsv(ctx.db, { userId: request.userId, campaign, where, format: request.query.format }));
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${resultsFileName(campaign)}"`)
        .header('cache-control', 'no-store')
        .send(stream);
    },
  );

  app.get(
    '/:id/follow-up/count',
    { schema: { tags, params: idParamsSchema, querystring: followUpCountQuerySchema, response: { 200: followUpCountSchema } } },
    (request) => countFollowUp(ctx.db, request.userId, request.params.id, request.query),
  );

  app.post(
    '/:id/follow-up',
    { schema: { tags, params: idParamsSchema, body: createFollowUpSchema, response: { 201: campaignSchema } } },
    async (request, reply) => reply.code(201).send(await createFollowUp(ctx, request.userId, request.params.id, request.body)),
  );
}
