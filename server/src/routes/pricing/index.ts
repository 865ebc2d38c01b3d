import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { okSchema } from '@masivo/contract/common';
import { rateCardSchema, rateCardUploadErrorSchema, rateCardUploadSchema } from '@masivo/contract/pricing';
import { logActivity } from '../request-actor';
import { createRateCardService, describeCard } from '../../services/pricing/rate-card-service';

/** Cost up front: the signed-in user's rate card, under /api/pricing. */
export default async function pricingRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const service = createRateCardService(app.ctx.db);
  const tags = ['pricing'];

  app.get('/', { config: { permission: 'campaigns.view' }, schema: { tags, response: { 200: rateCardSchema } } }, (req) => service.get(req.orgId));

  app.get('/csv', { config: { permission: 'campaigns.view' }, schema: { tags } }, async (req, reply) => {
    const date = new Date().toISOString().slice(0, 10);
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="tarifas-${date}.csv"`)
      .send(await service.csv(req.orgId));
  });

  app.put(
    '/csv',
    { config: { permission: 'connections.manage' }, schema: { tags, body: rateCardUploadSchema, response: { 200: rateCardSchema, 400: rateCardUploadErrorSchema } } },
    async (req, reply) => {
      const before = await service.get(req.orgId);
      const result = await service.upload(req.orgId, req.body.csv);
      if (!result.ok) {
        const n = result.errors.length;
        return reply.code(400).send({
          error: `El archivo tiene ${n} ${n === 1 ? 'error' : 'errores'}; no se aplicó ningún cambio.`,
          errors: result.errors,
        });
      }
      const after = describeCard(result.card, new Date());
      // A rate card has thousands of cells: the log keeps its size and origin, not every rate.
      await logActivity(req, {
        action: 'pricing.upload',
        target: { type: 'rate_card', id: req.orgId, name: 'Tarifa' },
        changes: {
          before: { is_default: before.is_default, rates: before.rates.length, updated_at: before.updated_at },
          after: { is_default: after.is_default, rates: after.rates.length, updated_at: after.updated_at },
        },
      });
      return after;
    },
  );

  app.delete('/', { config: { permission: 'connections.manage' }, schema: { tags, response: { 200: okSchema } } }, async (req) => {
    const before = await service.get(req.orgId);
    await service.reset(req.orgId);
    await logActivity(req, {
      action: 'pricing.reset',
      target: { type: 'rate_card', id: req.orgId, name: 'Tarifa' },
      changes: { before: { is_default: before.is_default, rates: before.rates.length }, after: { is_default: true } },
    });
    return { success: true as const, message: 'Se restauró la tarifa de Meta incluida en la consola' };
  });
}
