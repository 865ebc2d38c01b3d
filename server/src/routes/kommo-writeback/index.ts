import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { idParamsSchema } from '@masivo/contract/common';
import {
  campaignWritebackSchema,
  kommoPipelineSchema,
  writebackSettingsSchema,
  writebackSettingsViewSchema,
} from '@masivo/contract/kommo-writeback';
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../db/sql';
import { changesOf } from '../../services/activity/activity-log';
import { logActivity } from '../request-actor';
import { createWritebackService } from '../../services/kommo-writeback/writeback-service';

/** Write-back to Kommo: the account's settings and pipelines, and a campaign's progress. Mounted under /api. */
export default async function kommoWritebackRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const writeback = createWritebackService(app.ctx);

  app.get(
    '/kommo/accounts/:id/writeback',
    { config: { permission: 'campaigns.view', scope: { params: { id: 'kommo' } } }, schema: { tags: ['kommo'], params: idParamsSchema, response: { 200: writebackSettingsViewSchema } } },
    (req) => writeback.settings(req.orgId, req.params.id),
  );

  app.put(
    '/kommo/accounts/:id/writeback',
    { config: { permission: 'connections.manage', scope: { params: { id: 'kommo' } } }, schema: { tags: ['kommo'], params: idParamsSchema, body: writebackSettingsSchema, response: { 200: writebackSettingsViewSchema } } },
    async (req) => {
      const before = await writeback.settings(req.orgId, req.params.id);
      const [account] = await rowsOf<{ subdomain: string }>(
        app.ctx.db,
        sql`select subdomain from kommo_accounts where id = ${req.params.id} and user_id = ${req.orgId}`,
      );
      const after = await writeback.updateSettings(req.orgId, req.params.id, req.body);
      await logActivity(req, {
        action: 'kommo_writeback.update',
        target: { type: 'kommo_account', id: req.params.id, name: account?.subdomain ?? null },
        changes: changesOf(before, after),
      });
      return after;
    },
  );

  app.get(
    '/kommo/accounts/:id/pipelines',
    { config: { permission: 'campaigns.view', scope: { params: { id: 'kommo' } } }, schema: { tags: ['kommo'], params: idParamsSchema, response: { 200: z.array(kommoPipelineSchema) } } },
    (req) => writeback.pipelines(req.orgId, req.params.id),
  );

  app.get(
    '/campaigns/:id/kommo-writeback',
    { config: { permission: 'campaigns.view', scope: { params: { id: 'campaign' } } }, schema: { tags: ['campaigns'], params: idParamsSchema, response: { 200: campaignWritebackSchema } } },
    (req) => writeback.progress(req.orgId, req.params.id),
  );
}
