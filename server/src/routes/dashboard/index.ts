import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { dashboardActivityQuerySchema, dashboardActivitySchema, dashboardPendingSchema } from '@masivo/contract/stats';
import { dashboardActivity } from '../../services/dashboard/activity';
import { dashboardPending } from '../../services/dashboard/pending';

const tags = ['dashboard'];

/** The dashboard's activity of the last days, per WhatsApp number and day (its rollups), and the pending messages; both read the replica (`readDb`). */
export default async function dashboardRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { ctx } = app;

  app.get(
    '/activity',
    { config: { permission: 'campaigns.view', scope: {} }, schema: { tags, querystring: dashboardActivityQuerySchema, response: { 200: dashboardActivitySchema } } },
    async (request) => {
      const activity = await dashboardActivity(ctx.db, request.orgId, request.query, ctx.readDb);
      const visible = request.visible;
      return visible ? { ...activity, numbers: activity.numbers.filter((n) => n.whatsapp_account_id != null && visible.whatsapp.has(n.whatsapp_account_id)) } : activity;
    },
  );

  /** "Mensajes Pendientes": the spec's remaining messages of sending campaigns plus the deferred ones waiting for their retry. */
  app.get('/pending', { config: { permission: 'campaigns.view', scope: {} }, schema: { tags, response: { 200: dashboardPendingSchema } } }, (request) =>
    dashboardPending(ctx.readDb, request.orgId, request.visible ? [...request.visible.whatsapp] : null),
  );
}
