import { sql } from 'drizzle-orm';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/db/sql';
import { createTestApp, type TestApp } from './helpers/app';

/**
 * Invitations end to end: the mail is captured by an SMTP server in this process (no external
 * service), its link signs someone up into the organisation, and every way a link dies.
 */
type User = Awaited<ReturnType<TestApp['signUp']>>;
let t: TestApp;
let owner: User;
let smtp: SMTPServer;
const inbox: ParsedMail[] = [];
let waiting: Array<() => void> = [];

/** The next mail to `to`, waiting for it if it has not arrived yet. */
async function mailTo(to: string, timeoutMs = 5000): Promise<ParsedMail> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const i = inbox.findIndex((m) => (m.to && !Array.isArray(m.to) ? m.to.text : '').toLowerCase().includes(to.toLowerCase()));
    if (i !== -1) return inbox.splice(i, 1)[0]!;
    if (Date.now() > deadline) throw new Error(`no mail to ${to}`);
    await new Promise<void>((resolve) => {
      waiting.push(resolve);
      setTimeout(resolve, 100);
    });
  }
}
const tokenOf = (mail: ParsedMail) => /\/invitations\/([A-Za-z0-9_-]+)/.exec(mail.text ?? '')![1]!;

beforeAll(async () => {
  smtp = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((mail) => {
          inbox.push(mail);
          const w = waiting;
          waiting = [];
          for (const resolve of w) resolve();
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const { port } = smtp.server.address() as { port: number };
  t = await createTestApp({ SMTP_URL: `smtp://127.0.0.1:${port}`, PUBLIC_URL: 'https://masivo.example.com' });
  owner = await t.signUp();
});
afterAll(async () => {
  await t?.close();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});

const invite = (headers: { authorization: string }, payload: unknown) =>
  t.app.inject({ method: 'POST', url: '/api/organization/invitations', headers, payload: payload as object });
const register = (email: string, invitation_token?: string) =>
  t.app.inject({
    method: 'POST',
    url: '/api/auth/register',
    payload: { first_name: 'Luz', last_name: 'Gómez', email, password: 'secreto123', ...(invitation_token ? { invitation_token } : {}) },
  });
const preview = (token: string) => t.app.inject({ method: 'GET', url: `/api/invitations/${token}` });
const accept = (headers: { authorization: string }, token: string) =>
  t.app.inject({ method: 'POST', url: '/api/invitations/accept', headers, payload: { token } });
const kommoAccount = async (orgId: number) =>
  (
    await rowsOf<{ id: number }>(
      t.ctx.db,
      sql`insert into kommo_accounts (user_id, subdomain, access_token_enc, phone_field_id) values (${orgId}, 'demo', 'x', 1) returning id`,
    )
  )[0]!.id;

describe('an invitation by mail', () => {
  it('is mailed in Spanish with a link; signing up with it joins with the role and scope, once', async () => {
    const kommoId = await kommoAccount(owner.userId);
    const email = 'Invitada@Example.com';
    const res = await invite(owner.headers, { email, role: 'editor', scope: { kommo_account_ids: [kommoId] } });
    expect(res.statusCode).toBe(201);
    // With SMTP the link travels only by mail.
    expect(res.json().link).toBeNull();
    expect(res.json().invitation).toMatchObject({ email, role: 'editor', status: 'pending', mail_status: 'sending' });

    const mail = await mailTo('invitada@example.com');
    expect(mail.subject).toBe('Te invitaron a Ana Pérez en Mensajes Masivos');
    expect(mail.text).toContain('https://masivo.example.com/invitations/');
    const token = tokenOf(mail);
    await t.ctx.mailer.idle();

    // Only the hash is stored.
    const stored = await rowsOf<{ token_hash: string; mail_status: string }>(t.ctx.db, sql`select token_hash, mail_status from invitations where lower(email) = 'invitada@example.com'`);
    expect(stored[0]!.token_hash).not.toContain(token);
    expect(stored[0]!.mail_status).toBe('sent');

    const p = await preview(token);
    expect(p.statusCode).toBe(200);
    expect(p.json()).toMatchObject({ organization: 'Ana Pérez', email, role: 'editor' });

    const joined = await register('invitada@example.com', token);
    expect(joined.statusCode).toBe(201);
    const headers = { authorization: `Bearer ${joined.json().token}` };
    const me = (await t.app.inject({ method: 'GET', url: '/api/me', headers })).json();
    expect(me.organization.id).toBe(owner.userId);
    expect(me.role).toBe('editor');
    expect(me.scope).toEqual({ whatsapp_account_ids: [], kommo_account_ids: [kommoId] });
    // No organisation of their own was founded.
    expect(me.organizations).toHaveLength(1);

    // Single use.
    expect((await preview(token)).statusCode).toBe(404);
    expect((await register('otra@example.com', token)).statusCode).toBe(410);
    const list = (await t.app.inject({ method: 'GET', url: '/api/organization/invitations', headers: owner.headers })).json();
    expect(list.find((i: { email: string }) => i.email === email)).toMatchObject({ status: 'accepted', mail_status: 'sent' });

    const log = await rowsOf<{ action: string }>(t.ctx.db, sql`select action from activity_log where organization_id = ${owner.userId} order by id`);
    expect(log.map((l) => l.action)).toEqual(expect.arrayContaining(['invitation.create', 'invitation.accept']));
  });

  it('refuses a sign-up with another e-mail, and creates no account', async () => {
    await invite(owner.headers, { email: 'correcta@example.com', role: 'viewer' });
    const token = tokenOf(await mailTo('correcta@example.com'));
    const res = await register('intrusa@example.com', token);
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toMatch(/otro email/);
    const users = await rowsOf(t.ctx.db, sql`select 1 from users where email = 'intrusa@example.com'`);
    expect(users).toEqual([]);
    // The link still works for the invited address.
    expect((await preview(token)).statusCode).toBe(200);
  });

  it('is accepted by a signed-in user with the same e-mail, whose fresh session acts there', async () => {
    const existing = await t.signUp('ya-registrada@example.com');
    await invite(owner.headers, { email: 'YA-registrada@example.com', role: 'campaign_manager' });
    const token = tokenOf(await mailTo('ya-registrada@example.com'));
    const stranger = await t.signUp();
    const refused = await accept(stranger.headers, token);
    expect(refused.statusCode).toBe(403);
    const res = await accept(existing.headers, token);
    expect(res.statusCode).toBe(200);
    expect(res.json().me).toMatchObject({ organization: { id: owner.userId }, role: 'campaign_manager' });
    const me = (await t.app.inject({ method: 'GET', url: '/api/me', headers: { authorization: `Bearer ${res.json().token}` } })).json();
    expect(me.organization.id).toBe(owner.userId);
    expect(me.organizations).toHaveLength(2);
    expect((await accept(existing.headers, token)).statusCode).toBe(410);
  });

  it('two acceptances at once join once', async () => {
    const someone = await t.signUp('doble-clic@example.com');
    await invite(owner.headers, { email: 'doble-clic@example.com', role: 'viewer' });
    const token = tokenOf(await mailTo('doble-clic@example.com'));
    const codes = (await Promise.all([accept(someone.headers, token), accept(someone.headers, token)])).map((r) => r.statusCode).sort();
    expect(codes[0]).toBe(200);
    expect([409, 410]).toContain(codes[1]);
  });

  it('expires', async () => {
    await invite(owner.headers, { email: 'tarde@example.com', role: 'viewer' });
    const token = tokenOf(await mailTo('tarde@example.com'));
    await rowsOf(t.ctx.db, sql`update invitations set expires_at = now() - interval '1 minute' where email = 'tarde@example.com'`);
    expect((await preview(token)).statusCode).toBe(404);
    expect((await register('tarde@example.com', token)).statusCode).toBe(410);
    const list = (await t.app.inject({ method: 'GET', url: '/api/organization/invitations', headers: owner.headers })).json();
    expect(list.find((i: { email: string }) => i.email === 'tarde@example.com').status).toBe('expired');
  });

  it('resending kills the old link; the new one works', async () => {
    const created = (await invite(owner.headers, { email: 'reenvio@example.com', role: 'viewer' })).json();
    const first = tokenOf(await mailTo('reenvio@example.com'));
    const res = await t.app.inject({ method: 'POST', url: `/api/organization/invitations/${created.invitation.id}/resend`, headers: owner.headers });
    expect(res.statusCode).toBe(200);
    const second = tokenOf(await mailTo('reenvio@example.com'));
    expect(second).not.toBe(first);
    expect((await preview(first)).statusCode).toBe(404);
    expect((await register('reenvio@example.com', first)).statusCode).toBe(410);
    expect((await register('reenvio@example.com', second)).statusCode).toBe(201);
  });

  it('a revoked link is dead', async () => {
    const created = (await invite(owner.headers, { email: 'revocada@example.com', role: 'viewer' })).json();
    const token = tokenOf(await mailTo('revocada@example.com'));
    const res = await t.app.inject({ method: 'DELETE', url: `/api/organization/invitations/${created.invitation.id}`, headers: owner.headers });
    expect(res.statusCode).toBe(200);
    expect((await preview(token)).statusCode).toBe(404);
    expect((await register('revocada@example.com', token)).statusCode).toBe(410);
    const again = await t.app.inject({ method: 'DELETE', url: `/api/organization/invitations/${created.invitation.id}`, headers: owner.headers });
    expect(again.statusCode).toBe(409);
  });
});

describe('rules', () => {
  it('an administrator cannot invite an owner, but can invite an administrator', async () => {
    const admin = await t.addMember(owner.userId, 'admin');
    const res = await invite(admin.headers, { email: 'duena@example.com', role: 'owner' });
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toBe('No puedes invitar con un rol superior al tuyo');
    expect((await invite(admin.headers, { email: 'admin2@example.com', role: 'admin' })).statusCode).toBe(201);
  });

  it('another organisation’s invitation is 404', async () => {
    const created = (await invite(owner.headers, { email: 'ajena@example.com', role: 'viewer' })).json();
    const other = await t.signUp();
    for (const [method, url] of [
      ['DELETE', `/api/organization/invitations/${created.invitation.id}`],
      ['POST', `/api/organization/invitations/${created.invitation.id}/resend`],
    ] as const) {
      const res = await t.app.inject({ method, url, headers: other.headers });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
    }
    const list = (await t.app.inject({ method: 'GET', url: '/api/organization/invitations', headers: other.headers })).json();
    expect(list).toEqual([]);
  });

  it('refuses a second pending invitation to the same address, a member, and a scope of another organisation', async () => {
    await invite(owner.headers, { email: 'doble@example.com', role: 'viewer' });
    expect((await invite(owner.headers, { email: 'DOBLE@example.com', role: 'viewer' })).statusCode).toBe(409);
    const member = await t.signUp('miembro@example.com');
    await rowsOf(t.ctx.db, sql`insert into organization_members (organization_id, user_id, role) values (${owner.userId}, ${member.userId}, 'viewer')`);
    const already = await invite(owner.headers, { email: 'Miembro@example.com', role: 'viewer' });
    expect(already.statusCode).toBe(409);
    expect(already.json().error).toBe('Esa persona ya es miembro de la organización');
    const bad = await invite(owner.headers, { email: 'alcance@example.com', role: 'editor', scope: { whatsapp_account_ids: [424242] } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatch(/número que no existe/);
  });

  it('limits pending invitations per organisation', async () => {
    const founder = await t.signUp();
    await rowsOf(
      t.ctx.db,
      sql`insert into invitations (organization_id, email, role, token_hash, expires_at)
          select ${founder.userId}, 'p' || g || '@example.com', 'viewer', md5(random()::text || g), now() + interval '1 day' from generate_series(1, 50) g`,
    );
    const res = await invite(founder.headers, { email: 'una-mas@example.com', role: 'viewer' });
    expect(res.statusCode).toBe(429);
    expect(res.json().error).toMatch(/demasiadas invitaciones pendientes/i);
  });

  it('validates input in Spanish', async () => {
    const res = await invite(owner.headers, { email: 'no-es-email', role: 'jefe' });
    expect(res.statusCode).toBe(400);
    expect(res.body).toMatch(/Email inválido|Rol inválido/);
  });
});

describe('member changes are in the activity log', () => {
  it('role change with before and after, and removal', async () => {
    const editor = await t.addMember(owner.userId, 'editor');
    await t.app.inject({ method: 'PATCH', url: `/api/organization/members/${editor.userId}`, headers: owner.headers, payload: { role: 'viewer' } });
    await t.app.inject({ method: 'DELETE', url: `/api/organization/members/${editor.userId}`, headers: owner.headers });
    const log = await rowsOf<{ action: string; changes: { before?: { role: string }; after?: { role: string } } }>(
      t.ctx.db,
      sql`select action, changes from activity_log where organization_id = ${owner.userId} and target_type = 'member' and target_id = ${String(editor.userId)} order by id`,
    );
    expect(log.map((l) => l.action)).toEqual(['member.update', 'member.remove']);
    expect(log[0]!.changes.before!.role).toBe('editor');
    expect(log[0]!.changes.after!.role).toBe('viewer');
  });
});

describe('without SMTP', () => {
  let plain: TestApp;
  beforeAll(async () => {
    plain = await createTestApp();
  });
  afterAll(() => plain?.close());

  it('answers the link to pass on by hand, and it works', async () => {
    const boss = await plain.signUp();
    const res = await plain.app.inject({ method: 'POST', url: '/api/organization/invitations', headers: boss.headers, payload: { email: 'manual@example.com', role: 'viewer' } });
    expect(res.statusCode).toBe(201);
    expect(res.json().invitation.mail_status).toBe('not_sent');
    const link: string = res.json().link;
    expect(link).toMatch(/^http:\/\/localhost:3000\/invitations\/[A-Za-z0-9_-]{43}$/);
    const token = link.split('/').pop()!;
    const joined = await plain.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { email: 'manual@example.com', password: 'secreto123', invitation_token: token },
    });
    expect(joined.statusCode).toBe(201);
  });

  it('caps the invitations one member sends per hour, resends included', async () => {
    const boss = await plain.signUp();
    const created = await plain.app.inject({ method: 'POST', url: '/api/organization/invitations', headers: boss.headers, payload: { email: 'muchas@example.com', role: 'viewer' } });
    const url = `/api/organization/invitations/${created.json().invitation.id}/resend`;
    for (let i = 1; i < 100; i++) expect((await plain.app.inject({ method: 'POST', url, headers: boss.headers })).statusCode).toBe(200);
    const over = await plain.app.inject({ method: 'POST', url, headers: boss.headers });
    expect(over.statusCode).toBe(429);
    expect(over.json().error).toMatch(/demasiadas invitaciones en la última hora/);
  });
});

describe('failures and secrets', () => {
  it('a mail server that is down is reported to the caller, never thrown', async () => {
    const { createMailer } = await import('../src/lib/mailer');
    const mailer = createMailer({ SMTP_URL: 'smtp://127.0.0.1:9', MAIL_FROM: 'Mensajes Masivos <no-reply@example.com>' }, t.ctx.log);
    let outcome: string | null | undefined;
    mailer.send({ to: 'x@example.com', subject: 's', text: 't', html: '<p>t</p>' }, async (error) => {
      outcome = error;
    });
    await mailer.idle();
    expect(outcome).toBeTruthy();
  });

  it('request logs never carry an invitation token', async () => {
    const { serializeRequest } = await import('../src/lib/log-serializers');
    const token = 'a'.repeat(43);
    expect(serializeRequest({ method: 'GET', url: `/api/invitations/${token}` }).url).toBe('/api/invitations/[oculto]');
    expect(serializeRequest({ method: 'GET', url: `/invitations/${token}?x=1` }).url).toBe('/invitations/[oculto]');
    expect(serializeRequest({ method: 'POST', url: '/api/invitations/accept' }).url).toBe('/api/invitations/accept');
    expect(serializeRequest({ method: 'POST', url: '/api/organization/invitations/7/resend' }).url).toBe('/api/organization/invitations/7/resend');
  });
});
