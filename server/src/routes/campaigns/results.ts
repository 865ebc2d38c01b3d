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
import { refreshAnalyticsClicks } from '../../services/campaigns/campaign-analytics-clicks';
import { loggedExport, logActivity } from '../request-actor';
import { exportResultsCsv, resultsExportPlan, resultsFileName } from '../../services/campaigns/results-export';

const tags = ['campaigns'];

/** A campaign's results as CSV, and "Nueva campaña para…" a group of its recipients. */
export default async function campaignResultsRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { ctx } = app;

  app.get(
    '/:id/results.csv',
    { config: { permission: 'contacts.export', scope: { params: { id: 'campaign' } }, activity: 'campaign.results_export' }, schema: { tags, params: idParamsSchema, querystring: campaignResultsQuerySchema } },
    async (request, reply) => {
      // Everything that can refuse (missing campaign, bad group) runs before the first byte, on
      // the primary; the rows tolerate lag and come from the replica (`readDb`).
      const { campaign, where } = await resultsExportPlan(ctx.db, request.orgId, request.params.id, request.query);
      const counted = { rows: 0 };
      const rows = exportResultsCsv(ctx.readDb, { userId: request.orgId, campaign, where, format: request.query.format, counted });
      const stream = Readable.from(
        loggedExport(request, rows, (complete) => ({
          action: 'campaign.results_export',
          target: { type: 'campaign', id: campaign.id, name: campaign.name },
          detail: { filter: request.query, rows: counted.rows, complete },
        })),
      );
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${resultsFileName(campaign)}"`)
        .header('cache-control', 'no-store')
        .send(stream);
    },
  );

  // «Actualizar clics de Meta»: the template analytics' clicks for the campaign's days.
  app.post(
    '/:id/meta-clicks',
    { config: { permission: 'campaigns.view', scope: { params: { id: 'campaign' } } }, schema: { tags, params: idParamsSchema, response: { 200: campaignSchema } } },
    (request) => refreshAnalyticsClicks(ctx, request.orgId, request.params.id),
  );

  app.get(
    '/:id/follow-up/count',
    { config: { permission: 'campaigns.view', scope: { params: { id: 'campaign' } } }, schema: { tags, params: idParamsSchema, querystring: followUpCountQuerySchema, response: { 200: followUpCountSchema } } },
    (request) => countFollowUp(ctx.db, request.orgId, request.params.id, request.query),
  );

  app.post(
    '/:id/follow-up',
    { config: { permission: 'campaigns.edit', scope: { params: { id: 'campaign' } } }, schema: { tags, params: idParamsSchema, body: createFollowUpSchema, response: { 201: campaignSchema } } },
    async (request, reply) => {
      const created = await createFollowUp(ctx, request.orgId, request.params.id, request.body);
      await logActivity(request, {
        action: 'campaign.follow_up',
        target: { type: 'campaign', id: created.id, name: created.name },
        detail: { source_campaign_id: request.params.id, group: request.body },
      });
      return reply.code(201).send(created);
    },
  );
}
