import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { idParamsSchema, okSchema } from '@masivo/contract/common';
import {
  createWhatsAppAccountSchema,
  testWhatsAppAccountResponseSchema,
  updateWhatsAppAccountSchema,
  whatsappAccountSchema,
  whatsappAccountStatsSchema,
} from '@masivo/contract/whatsapp-accounts';
import { changesOf } from '../../services/activity/activity-log';
import { logActivity } from '../request-actor';
import { createWhatsAppAccountService } from '../../services/whatsapp-accounts/whatsapp-account-service';

const tags = ['whatsapp-accounts'];
const VOLATILE = new Set(['quality_rating', 'messaging_limit_tier', 'last_tested_at', 'stats', 'updated_at', 'created_at', 'restriction']);

export default async function whatsappAccountRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const accounts = createWhatsAppAccountService(app.ctx);
  /**
   * What the log keeps of a number: the answer's own fields (which never carry the token), less
   * what Meta changes by itself. changesOf drops any secret-named field on top.
   */
  const settingsOf = (a: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(whatsappAccountSchema.parse(a)).filter(([k]) => !VOLATILE.has(k)));
  const target = (a: { id: number; name: string; phone_number: string }) => ({ type: 'whatsapp_account', id: a.id, name: `${a.name} (${a.phone_number})` });

  app.get('/', { config: { permission: 'campaigns.view', scope: { list: { field: 'id', kind: 'whatsapp' } } }, schema: { tags, response: { 200: z.array(whatsappAccountSchema) } } }, (req) => accounts.list(req.orgId));

  app.get('/stats', { config: { permission: 'campaigns.view', scope: {} }, schema: { tags, response: { 200: whatsappAccountStatsSchema } } }, (req) =>
    accounts.stats(req.orgId, req.visible ? [...req.visible.whatsapp] : null),
  );

  app.get('/:id', { config: { permission: 'campaigns.view', scope: { params: { id: 'whatsapp' } } }, schema: { tags, params: idParamsSchema, response: { 200: whatsappAccountSchema } } }, (req) =>
    accounts.get(req.orgId, req.params.id),
  );

  app.post(
    '/',
    { config: { permission: 'connections.manage' }, schema: { tags, body: createWhatsAppAccountSchema, response: { 201: whatsappAccountSchema } } },
    async (req, reply) => {
      const created = await accounts.create(req.orgId, req.body, req.userId);
      await logActivity(req, { action: 'whatsapp_account.create', target: target(created), changes: changesOf(null, settingsOf(created)) });
      return reply.code(201).send(created);
    },
  );

  app.put(
    '/:id',
    { config: { permission: 'connections.manage' }, schema: { tags, params: idParamsSchema, body: updateWhatsAppAccountSchema, response: { 200: whatsappAccountSchema } } },
    async (req) => {
      const before = await accounts.get(req.orgId, req.params.id);
      const after = await accounts.update(req.orgId, req.params.id, req.body);
      await logActivity(req, {
        action: 'whatsapp_account.update',
        target: target(after),
        changes: changesOf(settingsOf(before), settingsOf(after)),
        // That the token was replaced is worth knowing; the token itself never is kept.
        detail: req.body.access_token ? { access_token_replaced: true } : null,
      });
      return after;
    },
  );

  app.delete('/:id', { config: { permission: 'connections.manage' }, schema: { tags, params: idParamsSchema, response: { 200: okSchema } } }, async (req) => {
    const before = await accounts.get(req.orgId, req.params.id);
    const result = await accounts.remove(req.orgId, req.params.id);
    await logActivity(req, { action: 'whatsapp_account.delete', target: target(before), changes: changesOf(settingsOf(before), null) });
    return result;
  });

  app.post(
    '/:id/test',
    { config: { permission: 'connections.manage' }, schema: { tags, params: idParamsSchema, response: { 200: testWhatsAppAccountResponseSchema } } },
    (req) => accounts.test(req.orgId, req.params.id),
  );

  app.post('/:id/refresh', { config: { permission: 'connections.manage' }, schema: { tags, params: idParamsSchema, response: { 200: whatsappAccountSchema } } }, (req) =>
    accounts.refresh(req.orgId, req.params.id),
  );
}
