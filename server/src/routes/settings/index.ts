import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { frequencyCapSchema } from '@masivo/contract/preflight';
import { getFrequencyCap, setFrequencyCap } from '../../services/campaigns/frequency-cap';

const tags = ['settings'];

/** The tenant's settings: the marketing frequency cap. */
export default async function settingsRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { ctx } = app;

  app.get('/frequency-cap', { schema: { tags, response: { 200: frequencyCapSchema } } }, (request) =>
    getFrequencyCap(ctx.db, request.userId),
  );

  app.put('/frequency-cap', { schema: { tags, body: frequencyCapSchema, response: { 200: frequencyCapSchema } } }, (request) =>
    setFrequencyCap(ctx.db, request.userId, request.body),
  );
}
