import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { frequencyCapSchema } from '@masivo/contract/preflight';
import { changesOf } from '../../services/activity/activity-log';
import { logActivity } from '../request-actor';
import { getFrequencyCap, setFrequencyCap } from '../../services/campaigns/frequency-cap';

const tags = ['settings'];

/** The tenant's settings: the marketing frequency cap. */
export default async function settingsRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { ctx } = app;

  app.get('/frequency-cap', { config: { permission: 'campaigns.view' }, schema: { tags, response: { 200: frequencyCapSchema } } }, (request) =>
    getFrequencyCap(ctx.db, request.orgId),
  );

  app.put('/frequency-cap', { config: { permission: 'organization.manage' }, schema: { tags, body: frequencyCapSchema, response: { 200: frequencyCapSchema } } }, async (request) => {
    const before = await getFrequencyCap(ctx.db, request.orgId);
    const after = await setFrequencyCap(ctx.db, request.orgId, request.body);
    await logActivity(request, {
      action: 'settings.frequency_cap',
      target: { type: 'settings', id: 'frequency_cap', name: 'Límite de frecuencia' },
      changes: changesOf(before, after),
    });
    return after;
  });
}
