import { and, eq, sql } from 'drizzle-orm';
import {
  EMPTY_SCOPE,
  ROLE_PERMISSIONS,
  ROLES,
  UNSCOPED_ROLES,
  type Me,
  type Member,
  type OrganizationSettings,
  type Role,
  type Scope,
  type UpdateMemberInput,
} from '@masivo/contract/organizations';
import type { Db, Tx } from '../../db/client';
import { organizationMembers, organizations, users } from '../../db/schema/index';
import { intArray, rowsOf } from '../../db/sql';
import { AppError, badRequest, notFound } from '../../lib/errors';
import type { Session } from '../auth/auth-service';
import { toUser } from '../auth/auth-service';

/** Who acts: the signed-in user, in the organisation and role of their session. */
export interface Actor {
  userId: number;
  orgId: number;
  role: Role | null;
}

const MEMBER_NOT_FOUND = 'Miembro no encontrado';
/** Lower is more: nobody grants a role above their own. */
export const rank = (role: Role) => ROLES.indexOf(role);

export function createOrganizationsService(db: Db) {
  const membersOf = async (orgId: number, userId?: number) =>
    rowsOf<{
      user_id: number;
      email: string;
      first_name: string;
      last_name: string;
      role: Role;
      scope_whatsapp_account_ids: number[];
      scope_kommo_account_ids: number[];
      created_at: Date | string;
    }>(
      db,
      sql`select m.user_id, u.email, u.first_name, u.last_name, m.role, m.scope_whatsapp_account_ids,
                 m.scope_kommo_account_ids, m.created_at
            from organization_members m join users u on u.id = m.user_id
           where m.organization_id = ${orgId} and (${userId ?? null}::int is null or m.user_id = ${userId ?? null}::int)
           order by array_position(array['owner','admin','campaign_manager','editor','viewer'], m.role), lower(u.email)`,
    );

  const toMember = (r: Awaited<ReturnType<typeof membersOf>>[number]): Member => ({
    user_id: r.user_id,
    email: r.email,
    first_name: r.first_name,
    last_name: r.last_name,
    role: r.role,
    scope: { whatsapp_account_ids: r.scope_whatsapp_account_ids ?? [], kommo_account_ids: r.scope_kommo_account_ids ?? [] },
    joined_at: new Date(r.created_at).toISOString(),
  });

  /**
   * Refuses a change that would leave the organisation without an owner. Runs in the change's
   * transaction after locking the organisation's row, so two demotions at once cannot both pass.
   */
  const keepAnOwner = async (tx: Tx, orgId: number, targetRole: Role) => {
    await tx.execute(sql`select 1 from organizations where id = ${orgId} for update`);
    if (targetRole !== 'owner') return;
    const [{ n }] = await rowsOf<{ n: number }>(tx, sql`select count(*)::int as n from organization_members where organization_id = ${orgId} and role = 'owner'`);
    if (n! <= 1) throw badRequest('La organización debe tener al menos un propietario');
  };

  /** Every id of a scope must be a number / Kommo account of this organisation. */
  const checkScope = async (orgId: number, scope: Scope) => {
    const [row] = await rowsOf<{ wa: number; ko: number }>(
      db,
      sql`select (select count(*)::int from whatsapp_accounts where user_id = ${orgId} and id = any(${intArray(scope.whatsapp_account_ids)})) as wa,
                 (select count(*)::int from kommo_accounts where user_id = ${orgId} and id = any(${intArray(scope.kommo_account_ids)})) as ko`,
    );
    if (row!.wa !== new Set(scope.whatsapp_account_ids).size) throw badRequest('El alcance incluye un número que no existe');
    if (row!.ko !== new Set(scope.kommo_account_ids).size) throw badRequest('El alcance incluye una cuenta de Kommo que no existe');
  };

  /** The target's current role, with the rules every change of someone else obeys. */
  const guardTarget = async (actor: Actor, targetUserId: number) => {
    const [target] = await membersOf(actor.orgId, targetUserId);
    if (!target) throw notFound(MEMBER_NOT_FOUND);
    if (actor.role !== 'owner' && target.role === 'owner') throw new AppError(403, 'Solo un propietario puede cambiar a otro propietario');
    return target;
  };

  return {
    async me(session: Session): Promise<Me> {
      const [user] = await db.select().from(users).where(eq(users.id, session.userId)).limit(1);
      if (!user) throw new AppError(401, 'Sesión inválida');
      const memberships = await rowsOf<{ id: number; name: string; role: Role }>(
        db,
        sql`select o.id, o.name, m.role from organization_members m join organizations o on o.id = m.organization_id
             where m.user_id = ${session.userId} order by lower(o.name), o.id`,
      );
      const current = memberships.find((m) => m.id === session.orgId) ?? null;
      return {
        user: toUser(user),
        organization: current ? { id: current.id, name: current.name } : null,
        role: session.role,
        permissions: session.role ? [...ROLE_PERMISSIONS[session.role]] : [],
        scope: session.scope,
        organizations: memberships,
      };
    },

    async members(orgId: number): Promise<Member[]> {
      return (await membersOf(orgId)).map(toMember);
    },

    async updateMember(actor: Actor, targetUserId: number, input: UpdateMemberInput): Promise<{ before: Member; after: Member }> {
      const target = await guardTarget(actor, targetUserId);
      const role = input.role;
      if (!actor.role || rank(role) < rank(actor.role)) throw new AppError(403, 'No puedes asignar un rol superior al tuyo');
      const scope = UNSCOPED_ROLES.includes(role) ? EMPTY_SCOPE : (input.scope ?? EMPTY_SCOPE);
      const fullScope = { whatsapp_account_ids: scope.whatsapp_account_ids ?? [], kommo_account_ids: scope.kommo_account_ids ?? [] };
      await checkScope(actor.orgId, fullScope);
      const updated = await db.transaction(async (tx) => {
        if (role !== 'owner') await keepAnOwner(tx, actor.orgId, target.role);
        // The session version moves: this member's sessions in this organisation end at once.
        const rows = await tx
          .update(organizationMembers)
          .set({
            role,
            scopeWhatsappAccountIds: fullScope.whatsapp_account_ids,
            scopeKommoAccountIds: fullScope.kommo_account_ids,
            sessionVersion: sql`${organizationMembers.sessionVersion} + 1`,
          })
          .where(and(eq(organizationMembers.organizationId, actor.orgId), eq(organizationMembers.userId, targetUserId)))
          .returning();
        return rows[0];
      });
      if (!updated) throw notFound(MEMBER_NOT_FOUND);
      const [after] = await membersOf(actor.orgId, targetUserId);
      return { before: toMember(target), after: toMember(after!) };
    },

    /** Removes a member, or lets one leave; the last owner can do neither. */
    async removeMember(actor: Actor, targetUserId: number, canManage: boolean): Promise<Member> {
      if (targetUserId !== actor.userId && !canManage) throw new AppError(403, 'No puedes quitar a otros miembros');
      const target = targetUserId === actor.userId ? (await membersOf(actor.orgId, targetUserId))[0] : await guardTarget(actor, targetUserId);
      if (!target) throw notFound(MEMBER_NOT_FOUND);
      await db.transaction(async (tx) => {
        await keepAnOwner(tx, actor.orgId, target.role);
        await tx
          .delete(organizationMembers)
          .where(and(eq(organizationMembers.organizationId, actor.orgId), eq(organizationMembers.userId, targetUserId)));
      });
      return toMember(target);
    },

    /** Every id of a scope must be a number / Kommo account of this organisation (400 otherwise). */
    checkScope,

    async settings(orgId: number): Promise<OrganizationSettings> {
      const [org] = await db.select().from(organizations).where(eq(organizations.id, orgId)).limit(1);
      if (!org) throw notFound('Organización no encontrada');
      return {
        approval: {
          mode: org.approvalMode,
          min_recipients: org.approvalMinRecipients,
          min_cost_usd: org.approvalMinCostUsd == null ? null : Number(org.approvalMinCostUsd),
        },
        activity_retention_days: org.activityRetentionDays,
      };
    },

    async updateSettings(orgId: number, input: OrganizationSettings): Promise<OrganizationSettings> {
      await db
        .update(organizations)
        .set({
          approvalMode: input.approval.mode,
          approvalMinRecipients: input.approval.min_recipients,
          approvalMinCostUsd: input.approval.min_cost_usd == null ? null : String(input.approval.min_cost_usd),
          activityRetentionDays: input.activity_retention_days,
        })
        .where(eq(organizations.id, orgId));
      return this.settings(orgId);
    },
  };
}
export type OrganizationsService = ReturnType<typeof createOrganizationsService>;
