import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { campaignPreflightQuerySchema, excludedQuerySchema, preflightRequestSchema, preflightSchema, type ExclusionReason } from '@masivo/contract/preflight';
import { idParamsSchema } from '@masivo/contract/common';
import { preflightForCampaign, preflightForPayload } from '../../services/campaigns/preflight';
import {
  excludedCsvPlan,
  excludedFileName,
  excludedPage,
  excludedSourceForCampaign,
  excludedSourceForPayload,
  type ExcludedSource,
} from '../../services/campaigns/preflight-excluded';

const tags = ['campaigns'];

/** The pre-flight of a campaign being built (POST) or saved (GET), and the contacts behind each exclusion. */
export default async function preflightRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { ctx } = app;

  app.post('/preflight', { config: { permission: 'campaigns.edit', scope: { body: { kommo_account_id: 'kommo', whatsapp_account_id: 'whatsapp', whatsapp_account_ids: 'whatsapp' } } }, schema: { tags, body: preflightRequestSchema, response: { 200: preflightSchema } } }, (request) =>
    preflightForPayload(ctx.db, request.orgId, request.body),
  );

  app.get(
    '/:id/preflight',
    { config: { permission: 'campaigns.edit', scope: { params: { id: 'campaign' } } }, schema: { tags, params: idParamsSchema, querystring: campaignPreflightQuerySchema, response: { 200: preflightSchema } } },
    (request) => preflightForCampaign(ctx.db, request.orgId, request.params.id, { startNow: request.query.start === 'now' }),
  );

  /** One exclusion list: a page of JSON, or (format=csv) the whole list as a file to download. */
  async function sendExcluded(
    reply: FastifyReply,
    source: ExcludedSource,
    query: { reason: ExclusionReason; format: 'json' | 'csv'; after: number; limit: number },
  ) {
    if (query.format === 'json') return excludedPage(ctx.db, source, query.reason, query.after, query.limit);
    const csv = await excludedCsvPlan(ctx.db, source, query.reason);
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${excludedFileName(source, query.reason)}"`)
      .header('cache-control', 'no-store')
      .send(Readable.from(csv));
  }

  app.get(
    '/:id/preflight/excluded',
    { config: { permission: 'campaigns.edit', scope: { params: { id: 'campaign' } } }, schema: { tags, params: idParamsSchema, querystring: excludedQuerySchema } },
    async (request, reply) => sendExcluded(reply, await excludedSourceForCampaign(ctx.db, request.orgId, request.params.id), request.query),
  );

  app.post(
    '/preflight/excluded',
    { config: { permission: 'campaigns.edit', scope: { body: { kommo_account_id: 'kommo', whatsapp_account_id: 'whatsapp', whatsapp_account_ids: 'whatsapp' } } }, schema: { tags, body: preflightRequestSchema, querystring: excludedQuerySchema } },
    async (request, reply) => sendExcluded(reply, await excludedSourceForPayload(ctx.db, request.orgId, request.body), request.query),
  );
}
