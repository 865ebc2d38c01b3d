import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { idSchema, okSchema } from '@masivo/contract/common';
import {
  can,
  meSchema,
  memberSchema,
  organizationSettingsSchema,
  switchResponseSchema,
  updateMemberSchema,
  type Role,
} from '@masivo/contract/organizations';
import { changesOf, recordActivity } from '../../services/activity/activity-log';
import { createOrganizationsService } from '../../services/organizations/organizations-service';
import { actorOf, logActivity } from '../request-actor';

const tags = ['organizations'];
const userParams = z.object({ userId: idSchema });

/**
 * The member's organisations (`/api/me`, switching), and the current organisation's members and
 * settings: `/api/organization/…` always means the one the session acts in.
 */
export default async function organizationRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { ctx } = app;
  const orgs = createOrganizationsService(ctx.db);
  const actor = (req: { userId: number; orgId: number; role: Role | null }) => ({
    userId: req.userId,
    orgId: req.orgId,
    role: req.role,
  });

  app.get('/me', { config: { permission: 'member' }, schema: { tags, response: { 200: meSchema } } }, (req) => orgs.me(req.session!));

  app.post(
    '/organizations/:id/switch',
    { config: { permission: 'member' }, schema: { tags, params: z.object({ id: idSchema }), response: { 200: switchResponseSchema } } },
    async (req) => {
      const { token } = await ctx.auth.switchTo(req.userId, req.params.id);
      const session = await ctx.auth.session(token);
      return { token, me: await orgs.me(session!) };
    },
  );

  app.get(
    '/organization/members',
    { config: { permission: 'organization.manage' }, schema: { tags, response: { 200: z.array(memberSchema) } } },
    (req) => orgs.members(req.orgId),
  );

  app.patch(
    '/organization/members/:userId',
    { config: { permission: 'organization.manage' }, schema: { tags, params: userParams, body: updateMemberSchema, response: { 200: memberSchema } } },
    async (req) => {
      const { before, after } = await orgs.updateMember(actor(req), req.params.userId, req.body);
      await recordActivity(ctx.db, actorOf(req), {
        action: 'member.update',
        target: { type: 'member', id: after.user_id, name: after.email },
        changes: { before: { role: before.role, scope: before.scope }, after: { role: after.role, scope: after.scope } },
      });
      return after;
    },
  );

  /** Removes a member; any member may remove themselves (leave), except the last owner. */
  app.delete(
    '/organization/members/:userId',
    { config: { permission: 'member' }, schema: { tags, params: userParams, response: { 200: okSchema } } },
    async (req) => {
      const removed = await orgs.removeMember(actor(req), req.params.userId, can(req.role, 'organization.manage'));
      await recordActivity(ctx.db, actorOf(req), {
        action: removed.user_id === req.userId ? 'member.leave' : 'member.remove',
        target: { type: 'member', id: removed.user_id, name: removed.email },
        changes: { before: { role: removed.role, scope: removed.scope } },
      });
      return { success: true as const, message: 'Miembro quitado de la organización' };
    },
  );

  app.get(
    '/organization/settings',
    { config: { permission: 'organization.manage' }, schema: { tags, response: { 200: organizationSettingsSchema } } },
    (req) => orgs.settings(req.orgId),
  );

  app.put(
    '/organization/settings',
    { config: { permission: 'organization.manage' }, schema: { tags, body: organizationSettingsSchema, response: { 200: organizationSettingsSchema } } },
    async (req) => {
      const before = await orgs.settings(req.orgId);
      const after = await orgs.updateSettings(req.orgId, req.body);
      await logActivity(req, {
        action: 'organization.settings',
        target: { type: 'organization', id: req.orgId, name: 'Configuración de la organización' },
        changes: changesOf(before, after),
      });
      return after;
    },
  );
}
