import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { authResponseSchema, changePasswordSchema, loginSchema, registerSchema, userSchema } from '@masivo/contract/auth';
import { okSchema } from '@masivo/contract/common';
import type { Tx } from '../../db/client';
import { AppError } from '../../lib/errors';
import { createInvitationsService } from '../../services/invitations/invitations-service';
import { createOrganizationsService } from '../../services/organizations/organizations-service';
import { recordSignIn, recordFailedSignIn } from '../../services/activity/sign-in-activity';

export default async function authRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { auth } = app.ctx;
  const invitations = createInvitationsService(app.ctx.db, createOrganizationsService(app.ctx.db), app.ctx.mailer, app.ctx.config);

  app.post(
    '/register',
    { config: { public: true }, schema: { tags: ['auth'], body: registerSchema, response: { 201: authResponseSchema } } },
    async (request, reply) => {
      const token = request.body.invitation_token;
      const agent = request.headers['user-agent'];
      const origin = { ip: request.ip, userAgent: typeof agent === 'string' ? agent.slice(0, 300) : null };
      // Through an invitation the account joins that organisation instead of founding one; a
      // refused invitation (other e-mail, dead link) rolls the whole sign-up back.
      const joining = token ? async (tx: Tx, user: { id: number; email: string }) => void (await invitations.join(tx, token, user, origin)) : undefined;
      return reply.code(201).send(await auth.register(request.body, request.ip, joining));
    },
  );

  app.post(
    '/login',
    { config: { public: true }, schema: { tags: ['auth'], body: loginSchema, response: { 200: authResponseSchema } } },
    async (request) => {
      const agent = request.headers['user-agent'];
      const from = { ip: request.ip, userAgent: typeof agent === 'string' ? agent.slice(0, 300) : null };
      let result;
      try {
        result = await auth.login(request.body, request.ip);
      } catch (err) {
        // Only a wrong e-mail or password; a throttled attempt (429) checked nothing.
        if (err instanceof AppError && err.statusCode === 401) await recordFailedSignIn(fastify.ctx, request.body.email, from);
        throw err;
      }
      await recordSignIn(fastify.ctx, result.token, from, request.body.email);
      return result;
    },
  );

  app.get('/me', { config: { permission: 'member' }, schema: { tags: ['auth'], response: { 200: userSchema } } }, async (request) =>
    auth.me(request.userId),
  );

  /** «Cerrar Sesión»: this session only. */
  app.post('/logout', { config: { permission: 'member' }, schema: { tags: ['auth'], response: { 200: okSchema } } }, async (request) => {
    if (!request.session) throw new AppError(401, 'No autorizado. Inicia sesión nuevamente.');
    return auth.logout(request.session);
  });

  /** «Cerrar sesión en todos los dispositivos»: every session of the user, this one included. */
  app.post('/logout-all', { config: { permission: 'member' }, schema: { tags: ['auth'], response: { 200: okSchema } } }, async (request) =>
    auth.logoutEverywhere(request.userId),
  );

  app.post(
    '/password',
    { config: { permission: 'member' }, schema: { tags: ['auth'], body: changePasswordSchema, response: { 200: authResponseSchema } } },
    async (request) => auth.changePassword(request.userId, request.session?.orgId ?? null, request.body, request.ip),
  );
}
