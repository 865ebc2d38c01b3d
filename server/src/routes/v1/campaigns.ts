import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { CAMPAIGN_STATUS_LABELS, type Campaign, type CampaignStatus } from '@masivo/contract/campaigns';
import {
  v1AddRecipientsResultSchema,
  v1AddRecipientsSchema,
  v1CampaignListQuerySchema,
  v1CampaignPageSchema,
  v1CampaignSchema,
  v1CreateCampaignSchema,
  v1IdParamsSchema,
  v1RecipientPageSchema,
  v1RecipientsQuerySchema,
  v1ScheduleSchema,
} from '@masivo/contract/public-api';
import { getCampaign, loadCampaignRow } from '../../services/campaigns/campaign-queries';
import { createCampaign } from '../../services/campaigns/create-campaign';
import { deleteCampaign } from '../../services/campaigns/delete-campaign';
import { addExplicitRecipients, createExplicitCampaign } from '../../services/campaigns/explicit-recipients';
import { cancelCampaign, pauseCampaign } from '../../services/campaigns/pause-campaign';
import { preflightForCampaign } from '../../services/campaigns/preflight';
import { startCampaign } from '../../services/campaigns/start-campaign';
import { updateCampaign } from '../../services/campaigns/update-campaign';
import { listV1Campaigns, listV1Recipients, toV1Campaign } from '../../services/public-api/v1-views';
import { conflict } from '../../lib/errors';
import { campaignTarget } from '../campaigns/index';
import { actorOf, logActivity } from '../request-actor';

const tags = ['campaigns'];
const one = { params: { id: 'campaign' } } as const;

/** 202 while the campaign waits for another member's approval, 200 otherwise. */
const answer = (reply: FastifyReply, c: Campaign, created = false) =>
  reply.code(c.status === 'pending_approval' ? 202 : created ? 201 : 200).send(toV1Campaign(c));

/** The numbers a key limited to some of them sees (null: every number). */
const numbersOf = (request: FastifyRequest) => (request.visible ? [...request.visible.whatsapp] : null);

/**
 * Campaigns of the public API. Every rule of the console applies, because these are the
 * console's own services: blacklist, opt-outs, frequency cap, sending hours, messaging limits
 * and the two-person approval (a start that needs it answers 202 `pending_approval`).
 */
export default async function campaignRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { ctx } = app;

  app.get(
    '/campaigns',
    {
      config: { permission: 'campaigns.view', apiScope: 'campaigns:read', scope: { list: { field: 'whatsapp_account_id', kind: 'whatsapp' } } },
      schema: { tags, operationId: 'listCampaigns', summary: 'Lista las campañas', querystring: v1CampaignListQuerySchema, response: { 200: v1CampaignPageSchema } },
    },
    (request) => listV1Campaigns(ctx.db, request.orgId, numbersOf(request), request.query),
  );

  app.post(
    '/campaigns',
    {
      config: { permission: 'campaigns.edit', apiScope: 'campaigns:write', scope: { body: { kommo_account_id: 'kommo', whatsapp_account_id: 'whatsapp', whatsapp_account_ids: 'whatsapp' } } },
      schema: {
        tags,
        operationId: 'createCampaign', summary: 'Crea una campaña desde un filtro de Kommo o con destinatarios explícitos',
        body: v1CreateCampaignSchema,
        response: { 201: v1CampaignSchema, 202: v1CampaignSchema },
      },
    },
    async (request, reply) => {
      const { recipients, kommo_account_id, filters, ...rest } = request.body;
      const actor = actorOf(request);
      let created: Campaign;
      if (kommo_account_id) {
        created = await createCampaign(ctx, request.orgId, { ...rest, kommo_account_id, filters: filters ?? {} }, actor);
      } else {
        // Recipients are added to a draft; a bad batch removes the draft again (nothing half-written);
        // a schedule comes last, through the approval gate.
        const { scheduled_at, ...draft } = rest;
        created = await createExplicitCampaign(ctx, request.orgId, draft, actor);
        if (recipients?.length) {
          await addExplicitRecipients(ctx, request.orgId, created.id, recipients).catch(async (err: unknown) => {
            await deleteCampaign(ctx, request.orgId, created.id);
            throw err;
          });
        }
        created = scheduled_at
          ? await updateCampaign(ctx, request.orgId, created.id, { scheduled_at }, actor)
          : await getCampaign(ctx.db, request.orgId, created.id);
      }
      await logActivity(request, { action: 'campaign.create', target: campaignTarget(created), detail: { via: 'api', recipients: recipients?.length ?? null } });
      return answer(reply, created, true);
    },
  );

  app.get(
    '/campaigns/:id',
    {
      config: { permission: 'campaigns.view', apiScope: 'campaigns:read', scope: one },
      schema: { tags, operationId: 'getCampaign', summary: 'Una campaña con sus cifras y el pre-envío', params: v1IdParamsSchema, response: { 200: v1CampaignSchema } },
    },
    async (request) => {
      const campaign = await getCampaign(ctx.db, request.orgId, request.params.id);
      const preflight = await preflightForCampaign(ctx.db, request.orgId, campaign.id).catch(() => null);
      return toV1Campaign(campaign, preflight);
    },
  );

  app.post(
    '/campaigns/:id/recipients',
    {
      config: { permission: 'campaigns.edit', apiScope: 'campaigns:write', scope: one },
      schema: {
        tags,
        operationId: 'addRecipients', summary: 'Agrega hasta 1000 destinatarios a una campaña en borrador',
        params: v1IdParamsSchema,
        body: v1AddRecipientsSchema,
        response: { 200: v1AddRecipientsResultSchema },
      },
    },
    async (request) => {
      const result = await addExplicitRecipients(ctx, request.orgId, request.params.id, request.body.recipients);
      const campaign = await loadCampaignRow(ctx.db, request.orgId, request.params.id);
      await logActivity(request, { action: 'campaign.recipients_add', target: campaignTarget(campaign), detail: { added: result.added, total: result.total } });
      return result;
    },
  );

  app.get(
    '/campaigns/:id/recipients',
    {
      config: { permission: 'campaigns.view', apiScope: 'campaigns:read', scope: one },
      schema: {
        tags,
        operationId: 'listRecipients', summary: 'Los destinatarios con su estado, error de Meta, respuesta y costo',
        params: v1IdParamsSchema,
        querystring: v1RecipientsQuerySchema,
        response: { 200: v1RecipientPageSchema },
      },
    },
    async (request) => {
      await loadCampaignRow(ctx.db, request.orgId, request.params.id);
      return listV1Recipients(ctx.db, request.orgId, request.params.id, request.query);
    },
  );

  const action = (path: string, summary: string, run: (request: FastifyRequest & { params: { id: number } }, before: { status: string }) => Promise<Campaign>, activity: (before: { status: string }, after: Campaign) => string | null) =>
    app.post(
      `/campaigns/:id/${path}`,
      {
        config: { permission: path === 'start' ? 'campaigns.start' : 'campaigns.send', apiScope: 'campaigns:send', scope: one },
        schema: { tags, operationId: `${path}Campaign`, summary, params: v1IdParamsSchema, response: { 200: v1CampaignSchema, 202: v1CampaignSchema } },
      },
      async (request, reply) => {
        const before = await loadCampaignRow(ctx.db, request.orgId, request.params.id);
        const after = await run(request as FastifyRequest & { params: { id: number } }, before);
        const name = activity(before, after);
        if (name) await logActivity(request, { action: name, target: campaignTarget(after), changes: { before: { status: before.status }, after: { status: after.status } } });
        return answer(reply, after);
      },
    );

  action(
    'start',
    'Inicia la campaña (202 si necesita aprobación)',
    (request) => startCampaign(ctx, request.orgId, request.params.id, actorOf(request)),
    // A start held for approval is recorded by the approval itself.
    (before, after) => (after.status === 'pending_approval' ? null : before.status === 'paused' ? 'campaign.resume' : 'campaign.start'),
  );
  action('pause', 'Pausa una campaña que envía', (request) => pauseCampaign(ctx, request.orgId, request.params.id), () => 'campaign.pause');
  action(
    'resume',
    'Reanuda una campaña pausada (202 si necesita aprobación)',
    async (request, before) => {
      if (before.status !== 'paused') throw conflict(`Solo se reanuda una campaña pausada; esta está «${CAMPAIGN_STATUS_LABELS[before.status as CampaignStatus]}»`);
      return startCampaign(ctx, request.orgId, request.params.id, actorOf(request));
    },
    (_before, after) => (after.status === 'pending_approval' ? null : 'campaign.resume'),
  );
  action('cancel', 'Cancela la campaña: no se envía nada más', (request) => cancelCampaign(ctx, request.orgId, request.params.id), () => 'campaign.cancel');

  app.post(
    '/campaigns/:id/schedule',
    {
      config: { permission: 'campaigns.send', apiScope: 'campaigns:send', scope: one },
      schema: { tags, operationId: 'scheduleCampaign', summary: 'Programa la campaña (202 si necesita aprobación)', params: v1IdParamsSchema, body: v1ScheduleSchema, response: { 200: v1CampaignSchema, 202: v1CampaignSchema } },
    },
    async (request, reply) => {
      const after = await updateCampaign(ctx, request.orgId, request.params.id, { scheduled_at: request.body.scheduled_at }, actorOf(request));
      if (after.status === 'scheduled') await logActivity(request, { action: 'campaign.schedule', target: campaignTarget(after), changes: { after: { scheduled_at: after.scheduled_at } } });
      return answer(reply, after);
    },
  );
}
