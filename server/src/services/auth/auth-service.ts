import { createHash } from 'node:crypto';
import { eq, lt, sql } from 'drizzle-orm';
import type { ChangePasswordInput, LoginInput, RegisterInput, User } from '@masivo/contract/auth';
import type { Db, Tx } from '../../db/client';
import type { RateCounter } from '../../db/rate-counters';
import { revokedSessions, users } from '../../db/schema/index';
import { AppError, conflict } from '../../lib/errors';
import type { LoginThrottle } from './login-throttle';
import { hashPassword, timingDummyHash, verifyPassword } from './passwords';
import type { TokenService } from './tokens';

const INVALID_CREDENTIALS = 'Email o contraseña incorrectos';
const TOO_MANY_LOGINS = 'Demasiados intentos de inicio de sesión. Intenta de nuevo en unos minutos.';
const TOO_MANY_SIGNUPS = 'Demasiados registros desde esta dirección. Intenta de nuevo más tarde.';
const INVALID_SESSION = 'Sesión inválida';

type UserRow = typeof users.$inferSelect;

/** The session a request was made in: who, and which token (by hash, never the token itself). */
export interface Session {
  userId: number;
  tokenHash: string;
  expiresAt: Date;
}

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

  const session = async (row: UserRow) => ({
    token: await tokens.issue({ userId: row.id, email: row.email, version: row.tokenVersion }),
    user: toUser(row),
  });

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
    async register(input: RegisterInput, ip: string) {
      const email = input.email.trim();
      if ((await throttle.isBlocked(email, ip)) || !(await signups.take(ip))) throw new AppError(429, TOO_MANY_SIGNUPS);
      const passwordHash = await hashPassword(input.password);
      const inserted = await db
        .insert(users)
        .values({ email, passwordHash, firstName: input.first_name ?? '', lastName: input.last_name ?? '' })
        .onConflictDoNothing()
        .returning();
      if (!inserted[0]) {
        await throttle.recordFailure(email, ip);
        throw conflict('Ya existe una cuenta con ese email');
      }
      return session(inserted[0]);
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
      const [row] = await db
        .select({
          version: users.tokenVersion,
          revoked: sql<boolean>`exists (select 1 from ${revokedSessions} where ${revokedSessions.tokenHash} = ${tokenHash})`,
        })
        .from(users)
        .where(eq(users.id, claims.userId))
        .limit(1);
      if (!row || row.version !== claims.version || row.revoked) return null;
      return { userId: claims.userId, tokenHash, expiresAt: claims.expiresAt };
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

    async changePassword(userId: number, input: ChangePasswordInput, ip: string) {
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
      return session(updated);
    },
  };
}
export type AuthService = ReturnType<typeof createAuthService>;
