import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/db/sql';
import { createTestApp, type TestApp } from './helpers/app';

/** Organisations: /api/me, switching, members and their rules, settings. */
let t: TestApp;
type User = Awaited<ReturnType<TestApp['signUp']>>;
let owner: User;

beforeAll(async () => {
  t = await createTestApp();
  owner = await t.signUp();
});
afterAll(() => t?.close());

const me = (headers: { authorization: string }) => t.app.inject({ method: 'GET', url: '/api/me', headers });

describe('a sign-up founds an organisation', () => {
  it('makes the new user its owner; /api/me says so and lists it', async () => {
    const res = await me(owner.headers);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.organization).toEqual({ id: owner.userId, name: 'Ana Pérez' });
    expect(body.role).toBe('owner');
    expect(body.permissions).toContain('organization.own');
    expect(body.scope).toEqual({ whatsapp_account_ids: [], kommo_account_ids: [] });
    expect(body.organizations).toEqual([{ id: owner.userId, name: 'Ana Pérez', role: 'owner' }]);
  });

  it('keeps /api/auth/me in its shape', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: owner.headers });
    expect(Object.keys(res.json()).sort()).toEqual(['created_at', 'email', 'first_name', 'id', 'last_name']);
  });
});

describe('several organisations', () => {
  it('a member of two switches between them, and each session acts in exactly one', async () => {
    const editor = await t.addMember(owner.userId, 'editor');
    const inOwners = await me(editor.headers);
    expect(inOwners.json().organization.id).toBe(owner.userId);
    expect(inOwners.json().role).toBe('editor');
    expect(inOwners.json().organizations.map((o: { role: string }) => o.role).sort()).toEqual(['editor', 'owner']);

    const back = await t.app.inject({ method: 'POST', url: `/api/organizations/${editor.userId}/switch`, headers: editor.headers });
    expect(back.statusCode).toBe(200);
    expect(back.json().me.organization.id).toBe(editor.userId);
    expect(back.json().me.role).toBe('owner');
    // The session acting in the first organisation is untouched.
    expect((await me(editor.headers)).json().organization.id).toBe(owner.userId);
  });

  it('switching to an organisation one does not belong to is a 404', async () => {
    const stranger = await t.signUp();
    const res = await t.app.inject({ method: 'POST', url: `/api/organizations/${stranger.userId}/switch`, headers: owner.headers });
    expect(res.statusCode).toBe(404);
  });
});

describe('members', () => {
  it('lists members with roles; an administrator cannot grant owner nor touch an owner', async () => {
    const admin = await t.addMember(owner.userId, 'admin');
    const viewer = await t.addMember(owner.userId, 'viewer');
    const list = await t.app.inject({ method: 'GET', url: '/api/organization/members', headers: admin.headers });
    expect(list.statusCode).toBe(200);
    expect(list.json().map((m: { user_id: number }) => m.user_id)).toEqual(expect.arrayContaining([owner.userId, admin.userId, viewer.userId]));
    expect(list.json()[0].role).toBe('owner');

    const up = await t.app.inject({ method: 'PATCH', url: `/api/organization/members/${viewer.userId}`, headers: admin.headers, payload: { role: 'owner' } });
    expect(up.statusCode).toBe(403);
    expect(up.json().error).toBe('No puedes asignar un rol superior al tuyo');
    const demote = await t.app.inject({ method: 'PATCH', url: `/api/organization/members/${owner.userId}`, headers: admin.headers, payload: { role: 'viewer' } });
    expect(demote.statusCode).toBe(403);
    const remove = await t.app.inject({ method: 'DELETE', url: `/api/organization/members/${owner.userId}`, headers: admin.headers });
    expect(remove.statusCode).toBe(403);
  });

  it('a changed role ends that member’s sessions in this organisation at once, and not in their own', async () => {
    const member = await t.addMember(owner.userId, 'viewer');
    const ownOrg = await t.app.inject({ method: 'POST', url: `/api/organizations/${member.userId}/switch`, headers: member.headers });
    const ownHeaders = { authorization: `Bearer ${ownOrg.json().token}` };
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/api/organization/members/${member.userId}`,
      headers: owner.headers,
      payload: { role: 'campaign_manager', scope: { whatsapp_account_ids: [], kommo_account_ids: [] } },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().role).toBe('campaign_manager');
    expect((await me(member.headers)).statusCode).toBe(401);
    expect((await me(ownHeaders)).statusCode).toBe(200);
  });

  it('a removal ends the sessions there; the removed id then answers 404', async () => {
    const member = await t.addMember(owner.userId, 'editor');
    const res = await t.app.inject({ method: 'DELETE', url: `/api/organization/members/${member.userId}`, headers: owner.headers });
    expect(res.statusCode).toBe(200);
    expect((await me(member.headers)).statusCode).toBe(401);
    const again = await t.app.inject({ method: 'DELETE', url: `/api/organization/members/${member.userId}`, headers: owner.headers });
    expect(again.statusCode).toBe(404);
  });

  it('the last owner can neither leave nor be demoted; with a second owner they can', async () => {
    const solo = await t.signUp();
    const leave = await t.app.inject({ method: 'DELETE', url: `/api/organization/members/${solo.userId}`, headers: solo.headers });
    expect(leave.statusCode).toBe(400);
    expect(leave.json().error).toBe('La organización debe tener al menos un propietario');
    const demote = await t.app.inject({ method: 'PATCH', url: `/api/organization/members/${solo.userId}`, headers: solo.headers, payload: { role: 'admin' } });
    expect(demote.statusCode).toBe(400);

    const second = await t.addMember(solo.userId, 'owner');
    const ok = await t.app.inject({ method: 'PATCH', url: `/api/organization/members/${solo.userId}`, headers: second.headers, payload: { role: 'admin' } });
    expect(ok.statusCode, ok.body).toBe(200);
  });

  it('a member may leave; a member of another organisation answers 404', async () => {
    const member = await t.addMember(owner.userId, 'viewer');
    const outsider = await t.signUp();
    const foreign = await t.app.inject({ method: 'PATCH', url: `/api/organization/members/${outsider.userId}`, headers: owner.headers, payload: { role: 'viewer' } });
    expect(foreign.statusCode).toBe(404);
    const others = await t.app.inject({ method: 'DELETE', url: `/api/organization/members/${owner.userId}`, headers: member.headers });
    expect(others.statusCode).toBe(403);
    const leave = await t.app.inject({ method: 'DELETE', url: `/api/organization/members/${member.userId}`, headers: member.headers });
    expect(leave.statusCode).toBe(200);
  });

  it('refuses a scope naming another organisation’s number, and drops the scope of an administrator', async () => {
    const member = await t.addMember(owner.userId, 'editor');
    const bad = await t.app.inject({
      method: 'PATCH',
      url: `/api/organization/members/${member.userId}`,
      headers: owner.headers,
      payload: { role: 'editor', scope: { whatsapp_account_ids: [424242], kommo_account_ids: [] } },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toBe('El alcance incluye un número que no existe');
    const [row] = await rowsOf<{ role: string }>(t.ctx.db, sql`select role from organization_members where user_id = ${member.userId} and organization_id = ${owner.userId}`);
    expect(row!.role).toBe('editor');
  });
});

describe('settings', () => {
  it('reads the defaults and saves the approval mode; a missing threshold is a Spanish 400', async () => {
    const get = await t.app.inject({ method: 'GET', url: '/api/organization/settings', headers: owner.headers });
    expect(get.json()).toEqual({ approval: { mode: 'off', min_recipients: null, min_cost_usd: null }, activity_retention_days: 365 });
    const bad = await t.app.inject({ method: 'PUT', url: '/api/organization/settings', headers: owner.headers, payload: { approval: { mode: 'cost' } } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toContain('Indica el costo en US$');
    const put = await t.app.inject({
      method: 'PUT',
      url: '/api/organization/settings',
      headers: owner.headers,
      payload: { approval: { mode: 'cost', min_cost_usd: 250.5 }, activity_retention_days: 90 },
    });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json()).toEqual({ approval: { mode: 'cost', min_recipients: null, min_cost_usd: 250.5 }, activity_retention_days: 90 });
  });
});
