import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { authResponseSchema, changePasswordSchema, loginSchema, registerSchema, userSchema } from '@masivo/contract/auth';
import { okSchema } from '@masivo/contract/common';
import { AppError } from '../../lib/errors';
import { recordSignIn, recordFailedSignIn } from '../../services/activity/sign-in-activity';

export default async function authRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { auth } = app.ctx;

  app.post(
    '/register',
    { config: { public: true }, schema: { tags: ['auth'], body: registerSchema, response: { 201: authResponseSchema } } },
    async (request, reply) => reply.code(201).send(await auth.register(request.body, request.ip)),
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
      await recordSignIn(fastify.ctx, result.token, from);
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
