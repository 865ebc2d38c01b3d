import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  campaignMessagesPageSchema,
  campaignMessagesQuerySchema,
  campaignSchema,
  approveCampaignSchema,
  createCampaignSchema,
  rejectCampaignSchema,
  retryUnknownSchema,
  updateCampaignSchema,
} from '@masivo/contract/campaigns';
import { idParamsSchema, okSchema } from '@masivo/contract/common';
import { listMessages } from '../../services/campaigns/campaign-messages';
import { getCampaign, listCampaigns } from '../../services/campaigns/campaign-queries';
import { createCampaign } from '../../services/campaigns/create-campaign';
import { deleteCampaign } from '../../services/campaigns/delete-campaign';
import { pauseCampaign } from '../../services/campaigns/pause-campaign';
import { retryFailed, retryUnknown } from '../../services/campaigns/retry-failed';
import { startCampaign } from '../../services/campaigns/start-campaign';
import { updateCampaign } from '../../services/campaigns/update-campaign';
import { approveCampaign, rejectCampaign, type Approver } from '../../services/campaigns/campaign-approvals';
import { actorOf } from '../request-actor';
import preflightRoutes from './preflight';
import campaignStatsRoutes from './stats';
import campaignResultsRoutes from './results';

const tags = ['campaigns'];

/** The deciding member (a route behind a permission always has one). */
const approverOf = (request: FastifyRequest): Approver => ({ ...actorOf(request), userId: request.userId });

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
    reply.code(201).send(await createCampaign(ctx, request.orgId, request.body, actorOf(request))),
  );

  app.get('/:id', { config: { permission: 'campaigns.view', scope: { params: { id: 'campaign' } } }, schema: { tags, params: idParamsSchema, response: { 200: campaignSchema } } }, (request) =>
    getCampaign(ctx.db, request.orgId, request.params.id),
  );

  app.put(
    '/:id',
    { config: { permission: 'campaigns.edit', scope: { params: { id: 'campaign' }, body: { kommo_account_id: 'kommo', whatsapp_account_id: 'whatsapp' } } }, schema: { tags, params: idParamsSchema, body: updateCampaignSchema, response: { 200: campaignSchema } } },
    (request) => updateCampaign(ctx, request.orgId, request.params.id, request.body, actorOf(request)),
  );

  app.delete('/:id', { config: { permission: 'campaigns.send', scope: { params: { id: 'campaign' } } }, schema: { tags, params: idParamsSchema, response: { 200: okSchema } } }, async (request) => {
    await deleteCampaign(ctx, request.orgId, request.params.id);
    return { success: true as const, message: 'Campaña eliminada exitosamente' };
  });

  // An Editor's start always asks for approval; the others' when the organisation's setting says so.
  app.post('/:id/start', { config: { permission: 'campaigns.start', scope: { params: { id: 'campaign' } } }, schema: { tags, params: idParamsSchema, response: { 200: campaignSchema } } }, (request) =>
    startCampaign(ctx, request.orgId, request.params.id, actorOf(request)),
  );

  // Two-person approval: neither the campaign's creator nor the requester may decide (403).
  app.post(
    '/:id/approve',
    { config: { permission: 'campaigns.approve', scope: { params: { id: 'campaign' } } }, schema: { tags, params: idParamsSchema, body: approveCampaignSchema, response: { 200: campaignSchema } } },
    (request) => approveCampaign(ctx, approverOf(request), request.params.id, request.body),
  );

  app.post(
    '/:id/reject',
    { config: { permission: 'campaigns.approve', scope: { params: { id: 'campaign' } } }, schema: { tags, params: idParamsSchema, body: rejectCampaignSchema, response: { 200: campaignSchema } } },
    (request) => rejectCampaign(ctx, approverOf(request), request.params.id, request.body),
  );

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
