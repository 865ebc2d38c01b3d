import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { frequencyCapSchema } from '@masivo/contract/preflight';
import { getFrequencyCap, setFrequencyCap } from '../../services/campaigns/frequency-cap';

const tags = ['settings'];

/** The tenant's settings: the marketing frequency cap. */
export default async function settingsRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { ctx } = app;

  app.get('/frequency-cap', { config: { permission: 'campaigns.view' }, schema: { tags, response: { 200: frequencyCapSchema } } }, (request) =>
    getFrequencyCap(ctx.db, request.orgId),
  );

  app.put('/frequency-cap', { config: { permission: 'organization.manage' }, schema: { tags, body: frequencyCapSchema, response: { 200: frequencyCapSchema } } }, (request) =>
    setFrequencyCap(ctx.db, request.orgId, request.body),
  );
}
