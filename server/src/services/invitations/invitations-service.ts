import { createHash, randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import {
  INVITATION_TTL_HOURS,
  MAX_PENDING_INVITATIONS,
  type CreateInvitationInput,
  type Invitation,
  type InvitationCreated,
  type InvitationPreview,
  type InvitationStatus,
  type MailStatus,
} from '@masivo/contract/invitations';
import { EMPTY_SCOPE, ROLE_LABEL, UNSCOPED_ROLES, type Role, type Scope } from '@masivo/contract/organizations';
import type { Config } from '../../config';
import type { Db, Tx } from '../../db/client';
import { createRateCounter } from '../../db/rate-counters';
import { intArray, rowsOf, type Queryable } from '../../db/sql';
import { AppError, conflict, notFound } from '../../lib/errors';
import type { Mailer } from '../../lib/mailer';
import { recordActivity, type ActivityActor } from '../activity/activity-log';
import { rank, type OrganizationsService } from '../organizations/organizations-service';

const NOT_FOUND = 'Invitación no encontrada';
/** Invitations (new or resent) one member may send per hour. */
const INVITATIONS_PER_HOUR = 100;
/** One answer for unknown, used, revoked and expired links: the page cannot tell them apart. */
const DEAD_LINK = 'La invitación no existe, ya se usó, fue revocada o venció';

interface Row {
  id: number;
  organization_id: number;
  email: string;
  role: Role;
  scope_whatsapp_account_ids: number[];
  scope_kommo_account_ids: number[];
  status: 'pending' | 'accepted' | 'revoked';
  expired: boolean;
  mail_status: MailStatus;
  mail_error: string | null;
  invited_by_name: string | null;
  expires_at: Date | string;
  created_at: Date | string;
  accepted_at: Date | string | null;
}

const COLUMNS = sql`i.id, i.organization_id, i.email, i.role, i.scope_whatsapp_account_ids, i.scope_kommo_account_ids, i.status,
  (i.expires_at <= now()) as expired, i.mail_status, i.mail_error, i.expires_at, i.created_at, i.accepted_at,
  (select coalesce(nullif(trim(u.first_name || ' ' || u.last_name), ''), u.email) from users u where u.id = i.invited_by) as invited_by_name`;

const iso = (v: Date | string) => new Date(v).toISOString();

const toInvitation = (r: Row): Invitation => ({
  id: r.id,
  email: r.email,
  role: r.role,
  scope: { whatsapp_account_ids: r.scope_whatsapp_account_ids ?? [], kommo_account_ids: r.scope_kommo_account_ids ?? [] },
  status: (r.status === 'pending' && r.expired ? 'expired' : r.status) satisfies InvitationStatus,
  mail_status: r.mail_status,
  mail_error: r.mail_error,
  invited_by: r.invited_by_name,
  expires_at: iso(r.expires_at),
  created_at: iso(r.created_at),
  accepted_at: r.accepted_at ? iso(r.accepted_at) : null,
});

/** 32 random bytes for the link; only their SHA-256 reaches the database. */
const newToken = () => randomBytes(32).toString('base64url');
export const hashInvitationToken = (token: string) => createHash('sha256').update(token).digest('hex');

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Who invites: the signed-in member and the request's origin, as the activity log keeps them. */
export type Inviter = ActivityActor & { userId: number; role: Role | null };

export function createInvitationsService(db: Db, orgs: OrganizationsService, mailer: Mailer, config: Pick<Config, 'PUBLIC_URL'>) {
  // Each invitation can mail an arbitrary address: a member's burst of them (created or resent)
  // is capped, counted in the database so every API process shares the count.
  const perInviter = createRateCounter(db, { name: 'invitation', limit: INVITATIONS_PER_HOUR, windowMs: 60 * 60 * 1000 });
  const throttle = async (actor: Inviter) => {
    if (!(await perInviter.take(String(actor.userId))))
      throw new AppError(429, `Enviaste demasiadas invitaciones en la última hora (máximo ${INVITATIONS_PER_HOUR}). Intenta de nuevo más tarde.`);
  };
  const linkOf = (token: string) => `${config.PUBLIC_URL.replace(/\/+$/, '')}/invitations/${token}`;

  const byId = async (q: Queryable, orgId: number, id: number) =>
    (await rowsOf<Row>(q, sql`select ${COLUMNS} from invitations i where i.organization_id = ${orgId} and i.id = ${id}`))[0];

  /** Nobody hands out (or manages the invitation of) a role above their own. */
  const guardRole = (actor: Inviter, role: Role) => {
    if (!actor.role || rank(role) < rank(actor.role)) throw new AppError(403, 'No puedes invitar con un rol superior al tuyo');
  };

  /**
   * Sends the link in the background: the request has been answered by then. The outcome is
   * stored only while the invitation still holds this token, so a slow first mail cannot
   * overwrite the status of a resend.
   */
  const deliver = (orgId: number, id: number, email: string, role: Role, token: string) => {
    if (!mailer.configured) return;
    const tokenHash = hashInvitationToken(token);
    void (async () => {
      const [org] = await rowsOf<{ name: string }>(db, sql`select name from organizations where id = ${orgId}`);
      const name = org?.name ?? 'una organización';
      const link = linkOf(token);
      mailer.send(
        {
          to: email,
          subject: `Te invitaron a ${name} en Mensajes Masivos`,
          text:
            `Hola:\n\nTe invitaron a unirte a ${name} en Mensajes Masivos con el rol ${ROLE_LABEL[role]}.\n\n` +
            `Para aceptar, abre este enlace (vale ${INVITATION_TTL_HOURS} horas y sirve una sola vez):\n${link}\n\n` +
            'Si no esperabas esta invitación, ignora este correo.\n',
          html:
            `<p>Hola:</p><p>Te invitaron a unirte a <strong>${escapeHtml(name)}</strong> en Mensajes Masivos con el rol ` +
            `<strong>${ROLE_LABEL[role]}</strong>.</p><p><a href="${escapeHtml(link)}">Aceptar la invitación</a></p>` +
            `<p>El enlace vale ${INVITATION_TTL_HOURS} horas y sirve una sola vez. Si no esperabas esta invitación, ignora este correo.</p>`,
        },
        async (error) => {
          await rowsOf(
            db,
            sql`update invitations set mail_status = ${error ? 'failed' : 'sent'}, mail_error = ${error}, updated_at = now()
                 where id = ${id} and organization_id = ${orgId} and token_hash = ${tokenHash}`,
          );
        },
      );
    })().catch(async () => {
      await rowsOf(db, sql`update invitations set mail_status = 'failed', mail_error = 'No se pudo preparar el correo' where id = ${id} and token_hash = ${tokenHash}`).catch(() => {});
    });
  };

  const answer = (row: Row, token: string): InvitationCreated => ({
    invitation: toInvitation(row),
    // With SMTP the link travels only by mail; without it someone must pass it on by hand.
    link: mailer.configured ? null : linkOf(token),
  });

  return {
    async list(orgId: number): Promise<Invitation[]> {
      const rows = await rowsOf<Row>(
        db,
        sql`select ${COLUMNS} from invitations i where i.organization_id = ${orgId}
             order by (i.status = 'pending' and i.expires_at > now()) desc, i.created_at desc, i.id desc limit 200`,
      );
      return rows.map(toInvitation);
    },

    async create(actor: Inviter, input: CreateInvitationInput): Promise<InvitationCreated> {
      const email = input.email.trim();
      guardRole(actor, input.role);
      const scope: Scope = UNSCOPED_ROLES.includes(input.role)
        ? EMPTY_SCOPE
        : { whatsapp_account_ids: input.scope?.whatsapp_account_ids ?? [], kommo_account_ids: input.scope?.kommo_account_ids ?? [] };
      await orgs.checkScope(actor.orgId, scope);
      await throttle(actor);
      const token = newToken();
      const row = await db.transaction(async (tx) => {
        // Serialises invitations of one organisation, so the pending limit holds under concurrency.
        await tx.execute(sql`select 1 from organizations where id = ${actor.orgId} for update`);
        const [member] = await rowsOf(
          tx,
          sql`select 1 from organization_members m join users u on u.id = m.user_id
               where m.organization_id = ${actor.orgId} and lower(u.email) = lower(${email})`,
        );
        if (member) throw conflict('Esa persona ya es miembro de la organización');
        // An expired invitation to the same address is dead: it gives way to the new one.
        await tx.execute(
          sql`delete from invitations where organization_id = ${actor.orgId} and lower(email) = lower(${email})
                and status = 'pending' and expires_at <= now()`,
        );
        const [pending] = await rowsOf<{ same: number; total: number }>(
          tx,
          sql`select count(*) filter (where lower(email) = lower(${email}))::int as same, count(*)::int as total
                from invitations where organization_id = ${actor.orgId} and status = 'pending' and expires_at > now()`,
        );
        if (pending!.same > 0) throw conflict('Ya hay una invitación pendiente para ese email: reenvíala o revócala');
        if (pending!.total >= MAX_PENDING_INVITATIONS)
          throw new AppError(429, `Hay demasiadas invitaciones pendientes (máximo ${MAX_PENDING_INVITATIONS}). Revoca alguna antes de invitar a más personas.`);
        const [created] = await rowsOf<{ id: number }>(
          tx,
          sql`insert into invitations (organization_id, email, role, scope_whatsapp_account_ids, scope_kommo_account_ids, invited_by,
                                       token_hash, mail_status, expires_at)
              values (${actor.orgId}, ${email}, ${input.role}, ${intArray(scope.whatsapp_account_ids)}, ${intArray(scope.kommo_account_ids)},
                      ${actor.userId}, ${hashInvitationToken(token)}, ${mailer.configured ? 'sending' : 'not_sent'},
                      now() + make_interval(hours => ${INVITATION_TTL_HOURS}))
              returning id`,
        );
        await recordActivity(tx, actor, {
          action: 'invitation.create',
          target: { type: 'invitation', id: created!.id, name: email },
          changes: { after: { email, role: input.role, scope } },
        });
        return (await byId(tx, actor.orgId, created!.id))!;
      });
      deliver(actor.orgId, row.id, row.email, row.role, token);
      return answer(row, token);
    },

    /** A new link (and a new 72 h) for a pending or expired invitation; the old link dies. */
    async resend(actor: Inviter, id: number): Promise<InvitationCreated> {
      const current = await byId(db, actor.orgId, id);
      if (!current) throw notFound(NOT_FOUND);
      guardRole(actor, current.role);
      if (current.status !== 'pending') throw conflict('La invitación ya no está pendiente');
      await throttle(actor);
      const token = newToken();
      const row = await db.transaction(async (tx) => {
        const updated = await rowsOf(
          tx,
          sql`update invitations set token_hash = ${hashInvitationToken(token)}, expires_at = now() + make_interval(hours => ${INVITATION_TTL_HOURS}),
                     mail_status = ${mailer.configured ? 'sending' : 'not_sent'}, mail_error = null, updated_at = now()
               where id = ${id} and organization_id = ${actor.orgId} and status = 'pending' returning id`,
        );
        if (!updated.length) throw conflict('La invitación ya no está pendiente');
        await recordActivity(tx, actor, { action: 'invitation.resend', target: { type: 'invitation', id, name: current.email } });
        return (await byId(tx, actor.orgId, id))!;
      });
      deliver(actor.orgId, row.id, row.email, row.role, token);
      return answer(row, token);
    },

    async revoke(actor: Inviter, id: number): Promise<void> {
      const current = await byId(db, actor.orgId, id);
      if (!current) throw notFound(NOT_FOUND);
      guardRole(actor, current.role);
      await db.transaction(async (tx) => {
        const updated = await rowsOf(
          tx,
          sql`update invitations set status = 'revoked', updated_at = now()
               where id = ${id} and organization_id = ${actor.orgId} and status = 'pending' returning id`,
        );
        if (!updated.length) throw conflict('La invitación ya no está pendiente');
        await recordActivity(tx, actor, {
          action: 'invitation.revoke',
          target: { type: 'invitation', id, name: current.email },
          changes: { before: { status: 'pending' }, after: { status: 'revoked' } },
        });
      });
    },

    /** What the accept page shows; 404 alike for unknown, used, revoked and expired links. */
    async preview(token: string): Promise<InvitationPreview> {
      const [row] = await rowsOf<{ organization: string; email: string; role: Role; invited_by: string | null; expires_at: Date | string }>(
        db,
        sql`select o.name as organization, i.email, i.role, i.expires_at,
                   (select coalesce(nullif(trim(u.first_name || ' ' || u.last_name), ''), u.email) from users u where u.id = i.invited_by) as invited_by
              from invitations i join organizations o on o.id = i.organization_id
             where i.token_hash = ${hashInvitationToken(token)} and i.status = 'pending' and i.expires_at > now()`,
      );
      if (!row) throw notFound(DEAD_LINK);
      return { ...row, expires_at: iso(row.expires_at) };
    },

    /**
     * Makes `user` a member through the invitation, inside the caller's transaction (sign-up or
     * accept). The row is locked, so two tabs accepting at once join once; the e-mail must be
     * the invited one, whatever else the link's holder knows. Answers the organisation joined.
     */
    async join(tx: Tx | Db, token: string, user: { id: number; email: string }, ip?: { ip?: string | null; userAgent?: string | null }): Promise<number> {
      const [inv] = await rowsOf<Row>(
        tx,
        sql`select ${COLUMNS} from invitations i where i.token_hash = ${hashInvitationToken(token)} for update`,
      );
      if (!inv || inv.status !== 'pending' || inv.expired) throw new AppError(410, DEAD_LINK);
      if (inv.email.toLowerCase() !== user.email.trim().toLowerCase())
        throw new AppError(403, 'Esta invitación es para otro email: inicia sesión o regístrate con el email invitado');
      const inserted = await rowsOf(
        tx,
        sql`insert into organization_members (organization_id, user_id, role, scope_whatsapp_account_ids, scope_kommo_account_ids)
            values (${inv.organization_id}, ${user.id}, ${inv.role}, ${intArray(inv.scope_whatsapp_account_ids ?? [])}, ${intArray(inv.scope_kommo_account_ids ?? [])})
            on conflict do nothing returning user_id`,
      );
      if (!inserted.length) throw conflict('Ya eres miembro de esta organización');
      await rowsOf(
        tx,
        sql`update invitations set status = 'accepted', accepted_at = now(), accepted_by = ${user.id}, updated_at = now() where id = ${inv.id}`,
      );
      await recordActivity(
        tx,
        { orgId: inv.organization_id, userId: user.id, role: inv.role, ip: ip?.ip ?? null, userAgent: ip?.userAgent ?? null },
        {
          action: 'invitation.accept',
          target: { type: 'invitation', id: inv.id, name: inv.email },
          changes: { after: { role: inv.role, scope: toInvitation(inv).scope } },
        },
      );
      return inv.organization_id;
    },

    /** A signed-in user accepts: joins in one transaction and answers the organisation. */
    async accept(user: { id: number; email: string }, token: string, origin?: { ip?: string | null; userAgent?: string | null }) {
      return db.transaction((tx) => this.join(tx, token, user, origin));
    },
  };
}
export type InvitationsService = ReturnType<typeof createInvitationsService>;
