import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { idSchema, okSchema } from '@masivo/contract/common';
import {
  acceptInvitationResponseSchema,
  acceptInvitationSchema,
  createInvitationSchema,
  invitationCreatedSchema,
  invitationPreviewSchema,
  invitationSchema,
  invitationTokenSchema,
} from '@masivo/contract/invitations';
import { AppError } from '../../lib/errors';
import { createInvitationsService } from '../../services/invitations/invitations-service';
import { createOrganizationsService } from '../../services/organizations/organizations-service';
import { actorOf } from '../request-actor';

const tags = ['invitations'];
const idParams = z.object({ id: idSchema });

/**
 * Invitations to the organisation the session acts in (`/api/organization/invitations…`, for
 * those who manage it), and the two ends of a link (`/api/invitations/…`): the public preview
 * the accept page shows, and accepting as a signed-in user. Signing up with a link goes through
 * POST /api/auth/register with `invitation_token`.
 */
export default async function invitationRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { ctx } = app;
  const orgs = createOrganizationsService(ctx.db);
  const invitations = createInvitationsService(ctx.db, orgs, ctx.mailer, ctx.config);
  const inviter = (req: FastifyRequest) => ({ ...actorOf(req), userId: req.userId });

  app.get(
    '/organization/invitations',
    { config: { permission: 'organization.manage' }, schema: { tags, response: { 200: z.array(invitationSchema) } } },
    (req) => invitations.list(req.orgId),
  );

  /** The link comes back only without SMTP (see docs/architecture/organizations.md). */
  app.post(
    '/organization/invitations',
    { config: { permission: 'organization.manage' }, schema: { tags, body: createInvitationSchema, response: { 201: invitationCreatedSchema } } },
    async (req, reply) => reply.code(201).send(await invitations.create(inviter(req), req.body)),
  );

  app.post(
    '/organization/invitations/:id/resend',
    { config: { permission: 'organization.manage' }, schema: { tags, params: idParams, response: { 200: invitationCreatedSchema } } },
    (req) => invitations.resend(inviter(req), req.params.id),
  );

  app.delete(
    '/organization/invitations/:id',
    { config: { permission: 'organization.manage' }, schema: { tags, params: idParams, response: { 200: okSchema } } },
    async (req) => {
      await invitations.revoke(inviter(req), req.params.id);
      return { success: true as const, message: 'Invitación revocada' };
    },
  );

  /** Public: the token is the credential (256 random bits), and the answer says only what the mail said. */
  app.get(
    '/invitations/:token',
    { config: { public: true }, schema: { tags, params: z.object({ token: invitationTokenSchema }), response: { 200: invitationPreviewSchema } } },
    (req) => invitations.preview(req.params.token),
  );

  /** A signed-in user joins; the answer is a session acting in the organisation joined. */
  app.post(
    '/invitations/accept',
    { config: { permission: 'member' }, schema: { tags, body: acceptInvitationSchema, response: { 200: acceptInvitationResponseSchema } } },
    async (req) => {
      const me = await ctx.auth.me(req.userId);
      const agent = req.headers['user-agent'];
      const orgId = await invitations.accept({ id: req.userId, email: me.email }, req.body.token, {
        ip: req.ip,
        userAgent: typeof agent === 'string' ? agent.slice(0, 300) : null,
      });
      const { token } = await ctx.auth.reissue(req.userId, orgId);
      const session = await ctx.auth.session(token);
      if (!session) throw new AppError(401, 'Sesión inválida');
      return { token, me: await orgs.me(session) };
    },
  );
}
