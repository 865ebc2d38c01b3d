import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  campaignMessagesPageSchema,
  campaignMessagesQuerySchema,
  campaignSchema,
  createCampaignSchema,
  retryUnknownSchema,
  updateCampaignSchema,
} from '@masivo/contract/campaigns';
import { idParamsSchema, okSchema } from '@masivo/contract/common';
import { can } from '@masivo/contract/organizations';
import { listMessages } from '../../services/campaigns/campaign-messages';
import { getCampaign, listCampaigns } from '../../services/campaigns/campaign-queries';
import { createCampaign } from '../../services/campaigns/create-campaign';
import { deleteCampaign } from '../../services/campaigns/delete-campaign';
import { pauseCampaign } from '../../services/campaigns/pause-campaign';
import { retryFailed, retryUnknown } from '../../services/campaigns/retry-failed';
import { startCampaign } from '../../services/campaigns/start-campaign';
import { updateCampaign } from '../../services/campaigns/update-campaign';
import { forbidden } from '../../lib/errors';
import preflightRoutes from './preflight';
import campaignStatsRoutes from './stats';
import campaignResultsRoutes from './results';

const tags = ['campaigns'];

/** Spec §7 "Campaigns": thin handlers; every rule lives in services/campaigns. */
export default async function campaignRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { ctx } = app;
  await app.register(preflightRoutes);
  await app.register(campaignStatsRoutes);
  await app.register(campaignResultsRoutes);

  app.get('/', { config: { permission: 'campaigns.view', scope: { list: { field: 'whatsapp_account_id', kind: 'whatsapp' } } }, schema: { tags, response: { 200: z.array(campaignSchema) } } }, (request) =>
    listCampaigns(ctx.db, request.orgId),
  );

  app.post('/', { config: { permission: 'campaigns.edit', scope: { body: { kommo_account_id: 'kommo', whatsapp_account_id: 'whatsapp' } } }, schema: { tags, body: createCampaignSchema, response: { 201: campaignSchema } } }, async (request, reply) =>
    reply.code(201).send(await createCampaign(ctx, request.orgId, request.body)),
  );

  app.get('/:id', { config: { permission: 'campaigns.view', scope: { params: { id: 'campaign' } } }, schema: { tags, params: idParamsSchema, response: { 200: campaignSchema } } }, (request) =>
    getCampaign(ctx.db, request.orgId, request.params.id),
  );

  app.put(
    '/:id',
    { config: { permission: 'campaigns.edit', scope: { params: { id: 'campaign' }, body: { kommo_account_id: 'kommo', whatsapp_account_id: 'whatsapp' } } }, schema: { tags, params: idParamsSchema, body: updateCampaignSchema, response: { 200: campaignSchema } } },
    (request) => updateCampaign(ctx, request.orgId, request.params.id, request.body),
  );

  app.delete('/:id', { config: { permission: 'campaigns.send', scope: { params: { id: 'campaign' } } }, schema: { tags, params: idParamsSchema, response: { 200: okSchema } } }, async (request) => {
    await deleteCampaign(ctx, request.orgId, request.params.id);
    return { success: true as const, message: 'Campaña eliminada exitosamente' };
  });

  app.post('/:id/start', { config: { permission: 'campaigns.start', scope: { params: { id: 'campaign' } } }, schema: { tags, params: idParamsSchema, response: { 200: campaignSchema } } }, (request) => {
    // An Editor may only ask for a start, which another member approves.
    if (!can(request.role, 'campaigns.send')) throw forbidden(request.role);
    return startCampaign(ctx, request.orgId, request.params.id);
  });

  app.post('/:id/pause', { config: { permission: 'campaigns.send', scope: { params: { id: 'campaign' } } }, schema: { tags, params: idParamsSchema, response: { 200: campaignSchema } } }, (request) =>
    pauseCampaign(ctx, request.orgId, request.params.id),
  );

  app.post('/:id/retry-failed', { config: { permission: 'campaigns.send', scope: { params: { id: 'campaign' } } }, schema: { tags, params: idParamsSchema, response: { 200: campaignSchema } } }, (request) =>
    retryFailed(ctx, request.orgId, request.params.id),
  );

  app.post(
    '/:id/retry-unknown',
    { config: { permission: 'campaigns.send', scope: { params: { id: 'campaign' } } }, schema: { tags, params: idParamsSchema, body: retryUnknownSchema, response: { 200: campaignSchema } } },
    (request) => retryUnknown(ctx, request.orgId, request.params.id),
  );

  app.get(
    '/:id/messages',
    { config: { permission: 'campaigns.view', scope: { params: { id: 'campaign' } } }, schema: { tags, params: idParamsSchema, querystring: campaignMessagesQuerySchema, response: { 200: campaignMessagesPageSchema } } },
    (request) => listMessages(ctx.db, request.orgId, request.params.id, request.query),
  );
}
