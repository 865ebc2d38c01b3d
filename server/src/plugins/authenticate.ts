import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../lib/errors';
import type { AuthService, Session } from '../services/auth/auth-service';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in user; set on every /api route not marked `config: { public: true }`. */
    userId: number;
    /** The session of that user this request was made in («Cerrar Sesión» ends just this one). */
    session: Session | null;
  }
  interface FastifyContextConfig {
    public?: boolean;
  }
}

/**
 * Authentication applies to the whole /api tree in one hook, so a new route is private
 * unless it says otherwise.
 */
export function registerAuthentication(app: FastifyInstance, auth: Pick<AuthService, 'session'>) {
  app.decorateRequest('userId', 0);
  app.decorateRequest('session', null);
  app.addHook('onRequest', async (request: FastifyRequest) => {
    // Decided on the matched route, not the raw URL: the router decodes `/%61pi/...` to an
    // /api route while request.url still does not start with '/api/'.
    const route = request.routeOptions.url;
    if (!route) return; // unknown route: the not-found handler answers
    if (!route.startsWith('/api/') || route.startsWith('/api/docs')) return;
    if (request.routeOptions.config?.public) return;
    const header = request.headers.authorization ?? '';
    const token = header.startsWith('Bearer ') ? header.slice(7).trim() : '';
    // Checked against the user row too: a revoked session or a deleted user is a 401, never a 500.
    const session = token ? await auth.session(token) : null;
    if (!session) throw new AppError(401, 'No autorizado. Inicia sesión nuevamente.');
    request.userId = session.userId;
    request.session = session;
  });
}
