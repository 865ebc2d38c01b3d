import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  campaignMessagesPageSchema,
  campaignMessagesQuerySchema,
  campaignSchema,
  approveCampaignSchema,
  rejectCampaignSchema,
  retryUnknownSchema,
  updateCampaignSchema,
} from '@masivo/contract/campaigns';
import { createAnyCampaignSchema } from '@masivo/contract/automations';
import { idParamsSchema, okSchema } from '@masivo/contract/common';
import { createAutomaticCampaign } from '../../services/automations/create-automatic';
import { listMessages } from '../../services/campaigns/campaign-messages';
import { getCampaign, listCampaigns, loadCampaignRow } from '../../services/campaigns/campaign-queries';
import { createCampaign } from '../../services/campaigns/create-campaign';
import { deleteCampaign } from '../../services/campaigns/delete-campaign';
import { pauseCampaign } from '../../services/campaigns/pause-campaign';
import { retryFailed, retryUnknown } from '../../services/campaigns/retry-failed';
import { startCampaign } from '../../services/campaigns/start-campaign';
import { updateCampaign } from '../../services/campaigns/update-campaign';
import { approveCampaign, rejectCampaign, type Approver } from '../../services/campaigns/campaign-approvals';
import { changesOf } from '../../services/activity/activity-log';
import { actorOf, logActivity } from '../request-actor';
import preflightRoutes from './preflight';
import campaignStatsRoutes from './stats';
import campaignResultsRoutes from './results';

const tags = ['campaigns'];

/** The deciding member (a route behind a permission always has one). */
const approverOf = (request: FastifyRequest): Approver => ({ ...actorOf(request), userId: request.userId });

type CampaignView = { id: number; name: string; status: string } & Record<string, unknown>;

/** The campaign as an activity-log target: its id and its name at the time. */
export const campaignTarget = (c: { id: number; name: string }) => ({ type: 'campaign', id: c.id, name: c.name });

/** Only the named fields of two views of a campaign, so counters moving meanwhile stay out. */
const fieldsOf = (c: CampaignView, keys: readonly string[]) => Object.fromEntries(keys.map((k) => [k, c[k] ?? null]));

/** Spec §7 "Campaigns": thin handlers; every rule lives in services/campaigns. */
export default async function campaignRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { ctx } = app;
  await app.register(preflightRoutes);
  await app.register(campaignStatsRoutes);
  await app.register(campaignResultsRoutes);

  // Lists, counts, charts and exports read the replica (`readDb`); a single campaign, which the
  // screens open right after creating or starting it, its existence checks, and every write stay
  // on the primary.
  app.get('/', { config: { permission: 'campaigns.view', scope: { list: { field: 'whatsapp_account_id', kind: 'whatsapp' } } }, schema: { tags, response: { 200: z.array(campaignSchema) } } }, (request) =>
    listCampaigns(ctx.readDb, request.orgId),
  );

  app.post('/', { config: { permission: 'campaigns.edit', scope: { body: { kommo_account_id: 'kommo', whatsapp_account_id: 'whatsapp', whatsapp_account_ids: 'whatsapp' } } }, schema: { tags, body: createAnyCampaignSchema, response: { 201: campaignSchema } } }, async (request, reply) => {
    // `kind: "automatic"`: a campaign that stays switched on and sends on Kommo stage events.
    const body = request.body;
    const created =
      body.kind === 'automatic' ? await createAutomaticCampaign(ctx, request.orgId, body, actorOf(request)) : await createCampaign(ctx, request.orgId, body, actorOf(request));
    await logActivity(request, {
      action: 'campaign.create',
      target: campaignTarget(created),
      changes: changesOf(null, fieldsOf(created, ['name', 'status', ...Object.keys(request.body)])),
    });
    return reply.code(201).send(created);
  });

  app.get('/:id', { config: { permission: 'campaigns.view', scope: { params: { id: 'campaign' } } }, schema: { tags, params: idParamsSchema, response: { 200: campaignSchema } } }, (request) =>
    getCampaign(ctx.db, request.orgId, request.params.id),
  );

  app.put(
    '/:id',
    { config: { permission: 'campaigns.edit', scope: { params: { id: 'campaign' }, body: { kommo_account_id: 'kommo', whatsapp_account_id: 'whatsapp', whatsapp_account_ids: 'whatsapp' } } }, schema: { tags, params: idParamsSchema, body: updateCampaignSchema, response: { 200: campaignSchema } } },
    async (request) => {
      const before = await getCampaign(ctx.db, request.orgId, request.params.id);
      const after = await updateCampaign(ctx, request.orgId, request.params.id, request.body, actorOf(request));
      const keys = ['name', 'status', ...Object.keys(request.body)];
      // Saving a date moves a draft to "scheduled": that edit is the campaign's scheduling.
      const scheduled = after.status === 'scheduled' && (before.status !== 'scheduled' || before.scheduled_at !== after.scheduled_at);
      await logActivity(request, {
        action: scheduled ? 'campaign.schedule' : 'campaign.update',
        target: campaignTarget(after),
        changes: changesOf(fieldsOf(before, keys), fieldsOf(after, keys)),
      });
      return after;
    },
  );

  app.delete('/:id', { config: { permission: 'campaigns.send', scope: { params: { id: 'campaign' } } }, schema: { tags, params: idParamsSchema, response: { 200: okSchema } } }, async (request) => {
    const before = await loadCampaignRow(ctx.db, request.orgId, request.params.id);
    await deleteCampaign(ctx, request.orgId, request.params.id);
    await logActivity(request, { action: 'campaign.delete', target: campaignTarget(before), changes: { before: { status: before.status } } });
    return { success: true as const, message: 'Campaña eliminada exitosamente' };
  });

  // An Editor's start always asks for approval; the others' when the organisation's setting says so.
  app.post('/:id/start', { config: { permission: 'campaigns.start', scope: { params: { id: 'campaign' } } }, schema: { tags, params: idParamsSchema, response: { 200: campaignSchema } } }, async (request) => {
    const before = await loadCampaignRow(ctx.db, request.orgId, request.params.id);
    const after = await startCampaign(ctx, request.orgId, request.params.id, actorOf(request));
    // A start held for approval is recorded by the approval itself (campaign.approval_requested).
    if (after.status === 'pending_approval') return after;
    await logActivity(request, {
      action: before.status === 'paused' ? 'campaign.resume' : 'campaign.start',
      target: campaignTarget(after),
      changes: { before: { status: before.status }, after: { status: after.status } },
    });
    return after;
  });

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

  app.post('/:id/pause', { config: { permission: 'campaigns.send', scope: { params: { id: 'campaign' } } }, schema: { tags, params: idParamsSchema, response: { 200: campaignSchema } } }, async (request) => {
    const before = await loadCampaignRow(ctx.db, request.orgId, request.params.id);
    const after = await pauseCampaign(ctx, request.orgId, request.params.id, request.userId || null);
    await logActivity(request, {
      action: 'campaign.pause',
      target: campaignTarget(after),
      changes: { before: { status: before.status }, after: { status: after.status } },
    });
    return after;
  });

  app.post('/:id/retry-failed', { config: { permission: 'campaigns.send', scope: { params: { id: 'campaign' } } }, schema: { tags, params: idParamsSchema, response: { 200: campaignSchema } } }, async (request) => {
    const before = await loadCampaignRow(ctx.db, request.orgId, request.params.id);
    const after = await retryFailed(ctx, request.orgId, request.params.id);
    await logActivity(request, {
      action: 'campaign.retry',
      target: campaignTarget(after),
      changes: changesOf({ status: before.status, failed_count: before.failedCount }, { status: after.status, failed_count: after.failed_count }),
    });
    return after;
  });

  app.post(
    '/:id/retry-unknown',
    { config: { permission: 'campaigns.send', scope: { params: { id: 'campaign' } } }, schema: { tags, params: idParamsSchema, body: retryUnknownSchema, response: { 200: campaignSchema } } },
    async (request) => {
      const after = await retryUnknown(ctx, request.orgId, request.params.id);
      await logActivity(request, { action: 'campaign.retry_unknown', target: campaignTarget(after) });
      return after;
    },
  );

  app.get(
    '/:id/messages',
    { config: { permission: 'campaigns.view', scope: { params: { id: 'campaign' } } }, schema: { tags, params: idParamsSchema, querystring: campaignMessagesQuerySchema, response: { 200: campaignMessagesPageSchema } } },
    (request) => listMessages(ctx.db, request.orgId, request.params.id, request.query, ctx.readDb),
  );
}
