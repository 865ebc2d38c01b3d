import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { activityCsvQuerySchema, activityPageSchema, activityQuerySchema, campaignActivityQuerySchema } from '@masivo/contract/activity';
import { idParamsSchema } from '@masivo/contract/common';
import { can } from '@masivo/contract/organizations';
import { exportActivityCsv, listActivity } from '../../services/activity/activity-queries';
import { loadCampaignRow } from '../../services/campaigns/campaign-queries';
import { loggedExport } from '../request-actor';

const tags = ['activity'];

/**
 * The activity log, read only: the organisation's page and CSV, and a campaign's timeline.
 * There is deliberately no PUT, PATCH or DELETE here: entries are append-only, and only the
 * retention sweep (engine/activity-retention.ts) removes old ones. Mounted under /api. Every
 * read here tolerates lag and goes to the replica (`readDb`); the export's own entry is written
 * on the primary.
 */
export default async function activityRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { ctx } = app;

  app.get(
    '/activity',
    { config: { permission: 'organization.manage' }, schema: { tags, querystring: activityQuerySchema, response: { 200: activityPageSchema } } },
    (request) => listActivity(ctx.readDb, request.orgId, request.query),
  );

  app.get(
    '/activity.csv',
    { config: { permission: 'organization.manage' }, schema: { tags, querystring: activityCsvQuerySchema } },
    async (request, reply) => {
      const { format, ...filter } = request.query;
      const counted = { rows: 0 };
      const rows = exportActivityCsv(ctx.readDb, { orgId: request.orgId, filter, format, counted });
      // The export is itself an entry, with its filter and row count.
      const logged = loggedExport(request, rows, (complete) => ({
        action: 'activity.export',
        target: { type: 'activity', id: request.orgId, name: 'Registro de actividad' },
        detail: { filter, format, rows: counted.rows, complete },
      }));
      const date = new Date().toISOString().slice(0, 10);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="actividad-${date}.csv"`)
        .header('cache-control', 'no-store')
        .send(Readable.from(logged));
    },
  );

  app.get(
    '/campaigns/:id/activity',
    {
      config: { permission: 'campaigns.view', scope: { params: { id: 'campaign' } } },
      schema: { tags: ['campaigns'], params: idParamsSchema, querystring: campaignActivityQuerySchema, response: { 200: activityPageSchema } },
    },
    async (request) => {
      // Another organisation's campaign is a 404, as on every campaign route (asked of the
      // primary: a campaign created a moment ago has a timeline).
      const campaign = await loadCampaignRow(ctx.db, request.orgId, request.params.id);
      const page = await listActivity(ctx.readDb, request.orgId, {
        ...request.query,
        target_type: 'campaign',
        target_id: String(campaign.id),
      });
      // Whoever can see the campaign sees its history; where members connect from stays with
      // those who manage the organisation.
      if (can(request.role, 'organization.manage')) return page;
      return { ...page, items: page.items.map((e) => ({ ...e, ip: null, user_agent: null })) };
    },
  );
}
