import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { dashboardActivityQuerySchema, dashboardActivitySchema } from '@masivo/contract/stats';
import { dashboardActivity } from '../../services/dashboard/activity';

const tags = ['dashboard'];

/** The dashboard's activity of the last days, per WhatsApp number and day. */
export default async function dashboardRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { ctx } = app;

  app.get(
    '/activity',
    { schema: { tags, querystring: dashboardActivityQuerySchema, response: { 200: dashboardActivitySchema } } },
    (request) => dashboardActivity(ctx.db, request.userId, request.query),
  );
}
