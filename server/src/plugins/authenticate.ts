import type { FastifyContextConfig, FastifyInstance, FastifyRequest } from 'fastify';
import type { ApiKeyScope } from '@masivo/contract/api-keys';
import { can, EMPTY_SCOPE, type Permission, type Role, type Scope } from '@masivo/contract/organizations';
import { AppError, forbidden } from '../lib/errors';
import { looksLikeApiKey, type ApiKeyPrincipal, type ApiKeysService } from '../services/api-keys/api-keys-service';
import type { AuthService, Session } from '../services/auth/auth-service';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in user (who acts); set on every /api route not marked `config: { public: true }`. */
    userId: number;
    /**
     * The organisation the request acts in: the tenant every query is scoped to. Tenant tables
     * name it `user_id` (0033_organizations.sql). 0 only for routes every member may use.
     */
    orgId: number;
    /** The member's role there, and the numbers / Kommo accounts they are limited to (empty: all). */
    role: Role | null;
    scope: Scope;
    /** The session of that user this request was made in («Cerrar Sesión» ends just this one). */
    session: Session | null;
    /**
     * The API key a request of another system was made with (then `session` is null, `userId`
     * is the key's creator and `role` the creator's role: a key never does more than them).
     */
    apiKey: ApiKeyPrincipal | null;
    /** Why the key was refused, answered after the rate limit counted the request (public API only). */
    authFailure: Error | null;
  }
  interface FastifyInstance {
    /** Every private /api route with the permission it declared: the authorisation matrix reads it. */
    routePermissions: { method: string; url: string; permission: Permission; scope?: FastifyContextConfig['scope']; apiScope?: ApiKeyScope }[];
  }
  interface FastifyContextConfig {
    public?: boolean;
    /** What the route needs (contract/src/organizations.ts); every private /api route names one. */
    permission?: Permission;
    /** The activity-log action a refused call is recorded as (defaults to the permission). */
    activity?: string;
    /**
     * The API-key scope that lets a key use this route. Routes without one refuse keys; the
     * public API's (/api/v1) refuse everything else.
     */
    apiScope?: ApiKeyScope;
  }
}

export const UNAUTHORIZED = 'No autorizado. Inicia sesión nuevamente.';
export const KEY_REQUIRED = 'La API pública se usa con una clave de API: Authorization: Bearer msv_live_…';
export const KEY_NOT_ACCEPTED = 'Esta ruta no acepta claves de API';
export const keyLacksScope = (scope: string) => `La clave de API no tiene el permiso «${scope}»`;

/** The public API: only API keys, answers in application/problem+json (routes/v1). */
export const isPublicApi = (url: string) => url === '/api/v1' || url.startsWith('/api/v1/');


/** Denied attempts the activity log must keep (start, approve, export…), reported by permission. */
export type DeniedListener = (request: FastifyRequest, permission: Permission) => void;

/**
 * Authentication and authorisation apply to the whole /api tree in one hook, so a new route is
 * private unless it says otherwise, and the server refuses to start when a private route does not
 * say which permission it needs.
 */
export function registerAuthentication(
  app: FastifyInstance,
  auth: Pick<AuthService, 'session'>,
  apiKeys: Pick<ApiKeysService, 'authenticate'>,
  onDenied: DeniedListener = () => {},
) {
  app.decorateRequest('userId', 0);
  app.decorateRequest('orgId', 0);
  app.decorateRequest('role', null);
  app.decorateRequest('scope', null as unknown as Scope);
  app.decorateRequest('session', null);
  app.decorateRequest('apiKey', null);
  app.decorateRequest('authFailure', null);

  const undeclared: string[] = [];
  const table: FastifyInstance['routePermissions'] = [];
  app.decorate('routePermissions', table);
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/api/') || route.url.startsWith('/api/docs') || route.url.startsWith('/api/v1/docs')) return;
    const config = (route.config ?? {}) as FastifyContextConfig;
    if (config.public) return;
    const methods = [route.method].flat().filter((m) => m !== 'HEAD');
    if (!config.permission) undeclared.push(`${methods.join(',')} ${route.url}`);
    else for (const method of methods) table.push({ method, url: route.url, permission: config.permission, scope: config.scope, apiScope: config.apiScope });
  });
  app.addHook('onReady', async () => {
    if (undeclared.length) throw new Error(`Rutas sin permiso declarado: ${undeclared.join(', ')}`);
  });

  app.addHook('onRequest', async (request: FastifyRequest) => {
    // Decided on the matched route, not the raw URL: the router decodes `/%61pi/...` to an
    // /api route while request.url still does not start with '/api/'.
    const route = request.routeOptions.url;
    if (!route) return; // unknown route: the not-found handler answers
    if (!route.startsWith('/api/') || route.startsWith('/api/docs') || route.startsWith('/api/v1/docs')) return;
    const config = request.routeOptions.config;
    if (config?.public) return;
    const header = request.headers.authorization ?? '';
    const token = header.startsWith('Bearer ') ? header.slice(7).trim() : '';
    if (isPublicApi(route)) {
      // Answered after the public API's rate limit has counted the request (routes/v1).
      await authenticateKey(request, token).catch((err: Error) => void (request.authFailure = err));
      return;
    }
    if (looksLikeApiKey(token)) return authenticateKey(request, token);
    // Checked against the user row too: a revoked session or a deleted user is a 401, never a 500.
    const session = token ? await auth.session(token) : null;
    if (!session) throw new AppError(401, UNAUTHORIZED);
    request.userId = session.userId;
    request.orgId = session.orgId ?? 0;
    request.role = session.role;
    request.scope = session.scope ?? EMPTY_SCOPE;
    request.session = session;
    const permission = config?.permission;
    if (!permission || permission === 'member') return;
    if (!can(session.role, permission)) {
      onDenied(request, permission);
      throw forbidden(session.role);
    }
  });

  /** Another system's request: the key, its scope for this route, then its creator's role. */
  async function authenticateKey(request: FastifyRequest, token: string) {
    const config = request.routeOptions.config;
    if (!looksLikeApiKey(token)) throw new AppError(401, KEY_REQUIRED);
    if (!config?.apiScope) throw new AppError(401, KEY_NOT_ACCEPTED);
    const key = await apiKeys.authenticate(token, request.ip);
    request.apiKey = key;
    request.userId = key.createdBy;
    request.orgId = key.orgId;
    request.role = key.role;
    request.scope = key.scope;
    if (!key.scopes.includes(config.apiScope)) throw new AppError(403, keyLacksScope(config.apiScope));
    const permission = config.permission;
    if (permission && permission !== 'member' && !can(key.role, permission)) {
      onDenied(request, permission);
      throw forbidden(key.role);
    }
  }
}
