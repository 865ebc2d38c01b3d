import { createHash } from 'node:crypto';
import { eq, lt, sql, type SQL } from 'drizzle-orm';
import type { ChangePasswordInput, LoginInput, RegisterInput, User } from '@masivo/contract/auth';
import { EMPTY_SCOPE, type Role, type Scope } from '@masivo/contract/organizations';
import type { Db, Tx } from '../../db/client';
import type { RateCounter } from '../../db/rate-counters';
import { organizationMembers, organizations, revokedSessions, users } from '../../db/schema/index';
import { preparedRows, rowsOf } from '../../db/sql';
import { AppError, conflict } from '../../lib/errors';
import type { LoginThrottle } from './login-throttle';
import { hashPassword, timingDummyHash, verifyPassword } from './passwords';
import type { TokenService } from './tokens';

const INVALID_CREDENTIALS = 'Email o contraseña incorrectos';
const TOO_MANY_LOGINS = 'Demasiados intentos de inicio de sesión. Intenta de nuevo en unos minutos.';
const TOO_MANY_SIGNUPS = 'Demasiados registros desde esta dirección. Intenta de nuevo más tarde.';
const INVALID_SESSION = 'Sesión inválida';

type UserRow = typeof users.$inferSelect;

/**
 * The session a request was made in: who, which token (by hash, never the token itself), and
 * the organisation it acts in with the member's role and scope there. `orgId` is null only for
 * a user who belongs to no organisation any more (removed from the only one they had joined).
 */
export interface Session {
  userId: number;
  tokenHash: string;
  expiresAt: Date;
  orgId: number | null;
  role: Role | null;
  scope: Scope;
}

interface MembershipRow {
  organization_id: number;
  role: Role;
  scope_whatsapp_account_ids: number[];
  scope_kommo_account_ids: number[];
  session_version: number;
}

/**
 * The membership a session acts in: the named organisation, or, for a sign-in (and tokens from
 * before organisations), the one the user founded, else the first one they joined.
 */
export async function membershipOf(db: Db | Tx, userId: number, orgId: number | null): Promise<MembershipRow | undefined> {
  const [row] = await rowsOf<MembershipRow>(db, sql`select * from ${membershipSelect(sql`${userId}::int`, orgId)} m`);
  return row;
}

/** The membership row `membershipOf` picks, as a subquery (the session reads it in its own statement). */
const membershipSelect = (userId: SQL, orgId: number | null) =>
  sql`(select organization_id, role, scope_whatsapp_account_ids, scope_kommo_account_ids, session_version
         from organization_members
        where user_id = ${userId} and (${orgId}::int is null or organization_id = ${orgId}::int)
        order by (organization_id = ${userId}) desc, created_at, organization_id
        limit 1)`;

const scopeOf = (m: MembershipRow): Scope => ({
  whatsapp_account_ids: m.scope_whatsapp_account_ids ?? [],
  kommo_account_ids: m.scope_kommo_account_ids ?? [],
});

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

export function toUser(row: UserRow): User {
  return {
    id: row.id,
    email: row.email,
    first_name: row.firstName,
    last_name: row.lastName,
    created_at: row.createdAt.toISOString(),
  };
}

export function createAuthService(db: Db, tokens: TokenService, throttle: LoginThrottle, signups: Pick<RateCounter, 'take'>) {
  const findByEmail = async (email: string) =>
    (await db.select().from(users).where(sql`lower(${users.email}) = lower(${email})`).limit(1))[0];
  const findById = async (id: number) => (await db.select().from(users).where(eq(users.id, id)).limit(1))[0];

  /** A token acting in `orgId` (or the user's default organisation). */
  const session = async (row: UserRow, orgId: number | null = null) => {
    const member = await membershipOf(db, row.id, orgId);
    return {
      token: await tokens.issue({
        userId: row.id,
        email: row.email,
        version: row.tokenVersion,
        org: member?.organization_id ?? null,
        memberVersion: member?.session_version ?? 0,
      }),
      user: toUser(row),
    };
  };

  /** Moving the version on invalidates every token issued before. */
  const revokeSessions = (tx: Db | Tx, userId: number) =>
    tx
      .update(users)
      .set({ tokenVersion: sql`${users.tokenVersion} + 1` })
      .where(eq(users.id, userId))
      .returning();

  return {
    /**
     * Sign-up must answer with a session (spec), so "this e-mail exists" cannot be hidden from
     * whoever tries it. It is made as costly as guessing at login instead: the same per-address
     * failure budget, a per-address sign-up limit, and the same argon2 work on both outcomes.
     */
    async register(input: RegisterInput, ip: string, joining?: (tx: Tx, user: UserRow) => Promise<void>) {
      const email = input.email.trim();
      if ((await throttle.isBlocked(email, ip)) || !(await signups.take(ip))) throw new AppError(429, TOO_MANY_SIGNUPS);
      const passwordHash = await hashPassword(input.password);
      const firstName = input.first_name ?? '';
      const lastName = input.last_name ?? '';
      const created = await db.transaction(async (tx) => {
        const [user] = await tx
          .insert(users)
          .values({ email, passwordHash, firstName, lastName })
          .onConflictDoNothing()
          .returning();
        if (!user) return undefined;
        if (joining) {
          await joining(tx, user);
        } else {
          // The founder's organisation takes the founder's id (0033_organizations.sql).
          const name = `${firstName} ${lastName}`.trim() || email;
          await tx.insert(organizations).values({ id: user.id, name });
          await tx.insert(organizationMembers).values({ organizationId: user.id, userId: user.id, role: 'owner' });
        }
        return user;
      });
      if (!created) {
        await throttle.recordFailure(email, ip);
        throw conflict('Ya existe una cuenta con ese email');
      }
      return session(created);
    },

    async login(input: LoginInput, ip: string) {
      const email = input.email.trim();
      if (await throttle.isBlocked(email, ip)) throw new AppError(429, TOO_MANY_LOGINS);
      const row = await findByEmail(email);
      const ok = row
        ? await verifyPassword(row.passwordHash, input.password)
        : (await verifyPassword(await timingDummyHash(), input.password), false);
      if (!row || !ok) {
        await throttle.recordFailure(email, ip);
        throw new AppError(401, INVALID_CREDENTIALS);
      }
      await throttle.recordSuccess(email, ip);
      return session(row);
    },

    async me(userId: number) {
      const row = await findById(userId);
      if (!row) throw new AppError(401, INVALID_SESSION);
      return toUser(row);
    },

    /**
     * The session of a valid, unrevoked token, or null. One primary-key lookup per request (the
     * user's token version and whether this token was signed out), so a logout, a password change
     * or a deleted account takes effect at once.
     */
    async session(token: string): Promise<Session | null> {
      const claims = await tokens.verify(token);
      if (!claims) return null;
      const tokenHash = hashToken(token);
      const org = claims.org ?? null;
      // One round trip, as before organisations: the user's token version, whether this token
      // was signed out, and the membership the token acts in (a primary-key lookup each).
      const [row] = await preparedRows<{ version: number; revoked: boolean } & Partial<MembershipRow>>(
        db,
        sql`select u.token_version as version,
                   exists (select 1 from revoked_sessions r where r.token_hash = ${tokenHash}) as revoked,
                   m.organization_id, m.role, m.scope_whatsapp_account_ids, m.scope_kommo_account_ids, m.session_version
              from users u
              left join lateral ${membershipSelect(sql`u.id`, org)} m on true
             where u.id = ${claims.userId}::int`,
      );
      if (!row || row.version !== claims.version || row.revoked) return null;
      const member = row.organization_id == null ? undefined : (row as MembershipRow);
      // Removed from this organisation, or its role or scope changed since: this session ends.
      if (org != null && !member) return null;
      if (member && member.session_version !== claims.memberVersion) return null;
      return {
        userId: claims.userId,
        tokenHash,
        expiresAt: claims.expiresAt,
        orgId: member?.organization_id ?? null,
        role: member?.role ?? null,
        scope: member ? scopeOf(member) : EMPTY_SCOPE,
      };
    },

    /** A session of the same user acting in another of their organisations. */
    async switchTo(userId: number, orgId: number) {
      const row = await findById(userId);
      if (!row) throw new AppError(401, INVALID_SESSION);
      if (!(await membershipOf(db, userId, orgId))) throw new AppError(404, 'Organización no encontrada');
      return session(row, orgId);
    },

    /** A fresh session for the organisation the request acts in (after accepting an invitation…). */
    async reissue(userId: number, orgId: number | null) {
      const row = await findById(userId);
      if (!row) throw new AppError(401, INVALID_SESSION);
      return session(row, orgId);
    },

    /** «Cerrar Sesión»: ends this session only; the user's other devices stay signed in. */
    async logout(session: Session) {
      await db.transaction(async (tx) => {
        // Rows past their token's expiry protect nothing any more, whoever they belonged to (they
        // hold only hashes); pruning them here keeps the table at about a week of sign-outs.
        await tx.delete(revokedSessions).where(lt(revokedSessions.expiresAt, sql`now()`));
        await tx
          .insert(revokedSessions)
          .values({ tokenHash: session.tokenHash, userId: session.userId, expiresAt: session.expiresAt })
          .onConflictDoNothing();
      });
      return { success: true as const, message: 'Sesión cerrada' };
    },

    /** «Cerrar sesión en todos los dispositivos»: every token of the user, this one included. */
    async logoutEverywhere(userId: number) {
      await db.transaction(async (tx) => {
        await revokeSessions(tx, userId);
        // The version bump already refuses these tokens: their one-by-one entries are redundant.
        await tx.delete(revokedSessions).where(eq(revokedSessions.userId, userId));
      });
      return { success: true as const, message: 'Sesión cerrada en todos los dispositivos' };
    },

    async changePassword(userId: number, orgId: number | null, input: ChangePasswordInput, ip: string) {
      const row = await findById(userId);
      if (!row) throw new AppError(401, INVALID_SESSION);
      if (await throttle.isBlocked(row.email, ip)) throw new AppError(429, TOO_MANY_LOGINS);
      if (!(await verifyPassword(row.passwordHash, input.current_password))) {
        await throttle.recordFailure(row.email, ip);
        throw new AppError(400, 'La contraseña actual es incorrecta');
      }
      const passwordHash = await hashPassword(input.new_password);
      const [updated] = await db
        .update(users)
        .set({ passwordHash, tokenVersion: sql`${users.tokenVersion} + 1` })
        .where(eq(users.id, userId))
        .returning();
      if (!updated) throw new AppError(401, INVALID_SESSION);
      return session(updated, orgId);
    },
  };
}
export type AuthService = ReturnType<typeof createAuthService>;
