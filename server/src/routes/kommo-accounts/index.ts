import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { idParamsSchema, okSchema } from '@masivo/contract/common';
import {
  createKommoAccountSchema,
  kommoAccountSchema,
  kommoCustomFieldsRequestSchema,
  kommoFieldSchema,
  syncCancelledSchema,
  syncContactsRequestSchema,
  syncStartedSchema,
  syncStatusSchema,
  updateKommoAccountSchema,
} from '@masivo/contract/kommo-accounts';
import { changesOf } from '../../services/activity/activity-log';
import { logActivity } from '../request-actor';
import { createKommoAccountsService } from '../../services/kommo-accounts/kommo-accounts-service';
import { kommoKeepFreshSchema } from '@masivo/contract/kommo-inbound';
import { setKeepFresh } from '../../services/kommo-inbound/keep-fresh';
import { refreshInBackground } from '../../services/kommo-inbound/subscription';

/** Spec §7 "CRM accounts", under /api/kommo. */
export default async function kommoAccountRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const accounts = createKommoAccountsService(app.ctx);
  const tags = ['kommo'];
  /** What the log keeps of an account: its settings, never its token, nor its sync progress. */
  const settingsOf = (a: Record<string, unknown>) => {
    const { sync_status: _s, sync_total_contacts: _t, sync_progress_contacts: _p, last_sync_at: _l, freshness, ...rest } = a;
    // Of the freshness, only the operator's switch is a setting; the rest is Kommo's state.
    return freshness ? { ...rest, keep_fresh: (freshness as { keep_fresh: boolean }).keep_fresh } : rest;
  };
  const target = (a: { id: number; subdomain: string }) => ({ type: 'kommo_account', id: a.id, name: a.subdomain });

  app.get('/accounts', { config: { permission: 'campaigns.view', scope: { list: { field: 'id', kind: 'kommo' } } }, schema: { tags, response: { 200: z.array(kommoAccountSchema) } } }, (req) =>
    accounts.list(req.orgId),
  );

  app.get('/accounts/:id', { config: { permission: 'campaigns.view', scope: { params: { id: 'kommo' } } }, schema: { tags, params: idParamsSchema, response: { 200: kommoAccountSchema } } }, (req) =>
    accounts.get(req.orgId, req.params.id),
  );

  app.post(
    '/accounts',
    { config: { permission: 'connections.manage' }, schema: { tags, body: createKommoAccountSchema, response: { 201: kommoAccountSchema } } },
    async (req, reply) => {
      const created = await accounts.create(req.orgId, req.body, req.userId);
      await logActivity(req, { action: 'kommo_account.create', target: target(created), changes: changesOf(null, settingsOf(created)) });
      // Kommo's webhooks for the new account, in the background; the catch-up covers it until then.
      refreshInBackground(app.ctx, req.orgId, created.id);
      return reply.code(201).send(created);
    },
  );

  app.put(
    '/accounts/:id',
    { config: { permission: 'connections.manage' }, schema: { tags, params: idParamsSchema, body: updateKommoAccountSchema, response: { 200: kommoAccountSchema } } },
    async (req) => {
      const before = await accounts.get(req.orgId, req.params.id);
      const after = await accounts.update(req.orgId, req.params.id, req.body);
      await logActivity(req, { action: 'kommo_account.update', target: target(after), changes: changesOf(settingsOf(before), settingsOf(after)) });
      return after;
    },
  );

  app.delete('/accounts/:id', { config: { permission: 'connections.manage' }, schema: { tags, params: idParamsSchema, response: { 200: okSchema } } }, async (req) => {
    const before = await accounts.get(req.orgId, req.params.id);
    await accounts.remove(req.orgId, req.params.id);
    await logActivity(req, { action: 'kommo_account.delete', target: target(before), changes: changesOf(settingsOf(before), null) });
    return { success: true as const, message: 'Cuenta eliminada exitosamente' };
  });

  app.patch(
    '/accounts/:id/keep-fresh',
    { config: { permission: 'connections.manage' }, schema: { tags, params: idParamsSchema, body: kommoKeepFreshSchema, response: { 200: kommoAccountSchema } } },
    async (req) => {
      const before = await accounts.get(req.orgId, req.params.id);
      await setKeepFresh(app.ctx, req.orgId, req.params.id, req.body.keep_fresh);
      const after = await accounts.get(req.orgId, req.params.id);
      await logActivity(req, { action: 'kommo_account.update', target: target(after), changes: changesOf(settingsOf(before), settingsOf(after)) });
      return after;
    },
  );

  app.post(
    '/custom-fields',
    { config: { permission: 'connections.manage' }, schema: { tags, body: kommoCustomFieldsRequestSchema, response: { 200: z.array(kommoFieldSchema) } } },
    (req) => accounts.fetchCustomFields(req.orgId, req.body),
  );

  app.post(
    '/sync-contacts',
    { config: { permission: 'campaigns.edit', scope: { body: { account_id: 'kommo' } } }, schema: { tags, body: syncContactsRequestSchema, response: { 202: syncStartedSchema } } },
    async (req, reply) => {
      const account = await accounts.startSync(req.orgId, req.body.account_id, req.body.full);
      return reply.code(202).send({ success: true as const, message: 'Sincronización iniciada', account });
    },
  );

  app.post(
    '/accounts/:id/cancel-sync',
    { config: { permission: 'campaigns.edit', scope: { params: { id: 'kommo' } } }, schema: { tags, params: idParamsSchema, response: { 200: syncCancelledSchema } } },
    async (req) => {
      const account = await accounts.cancelSync(req.orgId, req.params.id);
      return { success: true as const, message: 'Sincronización cancelada', account };
    },
  );

  app.get(
    '/accounts/:id/sync-status',
    { config: { permission: 'campaigns.view', scope: { params: { id: 'kommo' } } }, schema: { tags, params: idParamsSchema, response: { 200: syncStatusSchema } } },
    (req) => accounts.syncStatus(req.orgId, req.params.id),
  );
}
