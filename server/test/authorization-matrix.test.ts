import { can, ROLES, type Permission, type Role } from '@masivo/contract/organizations';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app';

/**
 * The authorisation matrix, generated from the server's own route table: every private route
 * × {anonymous, each role, an ended session}. A route the role may not use answers 403 before
 * anything is looked up; one it may use never answers 401 or 403. Paths carry ids that exist
 * nowhere, so an allowed call changes nothing (404, or 400 for a body refused first). A route
 * added later joins the matrix by itself; the server refuses to start if it declares no
 * permission (checked below too).
 */
let t: TestApp;
type User = Awaited<ReturnType<TestApp['signUp']>>;
const members = {} as Record<Role, User>;
let ended: User;

/**
 * Routes open to more roles than may complete them, checked again in the handler: anyone may
 * leave, only managers remove others. (An Editor's start is not refused: it asks for approval.)
 */
const HANDLER_CHECKED: Record<string, Permission> = {
  'DELETE /api/organization/members/:userId': 'organization.manage',
};

/** Routes whose success would end the caller's own session: checked for refusal only. */
const SESSION_ENDING = new Set(['POST /api/auth/logout', 'POST /api/auth/logout-all', 'POST /api/auth/password']);

beforeAll(async () => {
  t = await createTestApp({ KOMMO_BASE_URL: 'http://127.0.0.1:9/{subdomain}', WHATSAPP_GRAPH_URL: 'http://127.0.0.1:9' });
  members.owner = await t.signUp();
  for (const role of ROLES) if (role !== 'owner') members[role] = await t.addMember(members.owner.userId, role);
  ended = await t.addMember(members.owner.userId, 'admin');
  await t.app.inject({ method: 'POST', url: '/api/auth/logout', headers: ended.headers });
});
afterAll(() => t?.close());

/** Routes a member's session may use: the public API (/api/v1) takes API keys only. */
const sessionRoutes = () => t.app.routePermissions.filter((r) => !r.url.startsWith('/api/v1/'));
const pathOf = (url: string) => url.replace(/:[A-Za-z]+/g, (p) => (p === ':fieldName' ? 'campo' : '2000000000'));
const call = (route: { method: string; url: string }, headers?: { authorization: string }) =>
  t.app.inject({ method: route.method as 'GET', url: pathOf(route.url), headers, payload: route.method === 'GET' || route.method === 'DELETE' ? undefined : {} });

describe('authorisation matrix', () => {
  it('knows every private route, each with a permission', () => {
    expect(t.app.routePermissions.length).toBeGreaterThan(80);
    for (const r of t.app.routePermissions) expect(r.permission, `${r.method} ${r.url}`).toBeTruthy();
  });

  it("Kommo's webhook is public (its secret is the credential): never 401, and an unknown secret is a 404 to anyone", async () => {
    expect(t.app.routePermissions.some((r) => r.url.startsWith('/api/kommo-hooks'))).toBe(false);
    expect(t.app.routePermissions.some((r) => r.method === 'PATCH' && r.url === '/api/kommo/accounts/:id/keep-fresh' && r.permission === 'connections.manage')).toBe(true);
    for (const headers of [undefined, ended.headers, members.owner.headers]) {
      const res = await t.app.inject({ method: 'POST', url: `/api/kommo-hooks/${'A'.repeat(43)}`, headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' }, payload: 'contacts[add][0][id]=1' });
      expect(res.statusCode).toBe(404);
    }
  });

  it('anonymous and ended sessions get 401 on every private route (the public API takes keys only)', async () => {
    for (const route of t.app.routePermissions) {
      expect((await call(route)).statusCode, `${route.method} ${route.url}`).toBe(401);
      expect((await call(route, ended.headers)).statusCode, `${route.method} ${route.url}`).toBe(401);
    }
  });

  for (const role of ROLES) {
    it(`${role}: 403 exactly where the role lacks the permission`, async () => {
      const wrong: string[] = [];
      for (const route of sessionRoutes()) {
        const key = `${route.method} ${route.url}`;
        const allowed = route.permission === 'member' || can(role, route.permission as Permission);
        if (allowed && SESSION_ENDING.has(key)) continue;
        const res = await call(route, members[role].headers);
        const refused = res.statusCode === 403;
        const expectRefused = !allowed || (key in HANDLER_CHECKED && !can(role, HANDLER_CHECKED[key]!));
        if (refused !== expectRefused || res.statusCode === 401) wrong.push(`${key} → ${res.statusCode}`);
      }
      expect(wrong).toEqual([]);
    });
  }
});

describe('API keys on the public API and the routes that take keys', () => {
  const keyRoutes = () => t.app.routePermissions.filter((r) => r.apiScope);
  const keyWith = async (scopes: string[]) => {
    const res = await t.app.inject({ method: 'POST', url: '/api/api-keys', headers: members.owner.headers, payload: { name: `m${scopes.join()}`, scopes, rate_limit_per_minute: 10_000 } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: number; key: string };
  };
  const callWithKey = (route: { method: string; url: string }, key: string) =>
    t.app.inject({
      method: route.method as 'GET',
      url: pathOf(route.url),
      headers: { authorization: `Bearer ${key}`, 'idempotency-key': `m-${Math.random()}` },
      payload: route.method === 'GET' || route.method === 'DELETE' ? undefined : {},
    });

  it('every route that takes a key names its scope, and every /api/v1 route takes one', () => {
    expect(keyRoutes().length).toBeGreaterThan(8);
    for (const r of t.app.routePermissions) if (r.url.startsWith('/api/v1/')) expect(r.apiScope, `${r.method} ${r.url}`).toBeTruthy();
  });

  it('a key with the route\'s scope passes; a key with every other scope gets 403; a revoked key 401', async () => {
    const wrong: string[] = [];
    const scopes = [...new Set(keyRoutes().map((r) => r.apiScope!))];
    const all = ['campaigns:read', 'campaigns:write', 'campaigns:send', 'contacts:read', 'templates:read', 'webhooks:manage'];
    const revoked = await keyWith(all);
    await t.app.inject({ method: 'DELETE', url: `/api/api-keys/${revoked.id}`, headers: members.owner.headers });
    for (const scope of scopes) {
      const holding = await keyWith([scope]);
      const lacking = await keyWith(all.filter((s) => s !== scope));
      for (const route of keyRoutes().filter((r) => r.apiScope === scope)) {
        const key = `${route.method} ${route.url}`;
        const ok = await callWithKey(route, holding.key);
        if ([401, 403].includes(ok.statusCode)) wrong.push(`${key} with ${scope} → ${ok.statusCode}`);
        const refused = await callWithKey(route, lacking.key);
        if (refused.statusCode !== 403) wrong.push(`${key} without ${scope} → ${refused.statusCode}`);
        // The public API answers every error, this one and the allowed call's 4xx, as problem details.
        for (const res of route.url.startsWith('/api/v1/') ? [ok, refused] : []) {
          if (res.statusCode >= 400 && !String(res.headers['content-type']).startsWith('application/problem+json')) wrong.push(`${key} → ${res.statusCode} not problem+json`);
        }
        // Refused keys share the address's budget (30 a minute): past it they get 429, never through.
        const gone = await callWithKey(route, revoked.key);
        if (![401, 429].includes(gone.statusCode)) wrong.push(`${key} revoked → ${gone.statusCode}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('a key is refused by every route that does not take keys', async () => {
    const { key } = await keyWith(['campaigns:read', 'campaigns:write', 'campaigns:send', 'contacts:read', 'templates:read', 'webhooks:manage']);
    const wrong: string[] = [];
    for (const route of t.app.routePermissions.filter((r) => !r.apiScope)) {
      const res = await callWithKey(route, key);
      if (res.statusCode !== 401) wrong.push(`${route.method} ${route.url} → ${res.statusCode}`);
    }
    expect(wrong).toEqual([]);
  });
});

describe('a route without a permission', () => {
  it('stops the server from starting', async () => {
    const { buildApp } = await import('../src/app');
    const app = await buildApp(t.ctx);
    app.get('/api/sin-permiso', async () => ({}));
    await expect(app.ready()).rejects.toThrow('Rutas sin permiso declarado: GET /api/sin-permiso');
    await app.close().catch(() => {});
  });
});
