import { eq, sql } from 'drizzle-orm';
import type { ChangePasswordInput, LoginInput, RegisterInput, User } from '@masivo/contract/auth';
import type { Db } from '../../db/client';
import type { RateCounter } from '../../db/rate-counters';
import { users } from '../../db/schema/index';
import { AppError, conflict } from '../../lib/errors';
import type { LoginThrottle } from './login-throttle';
import { hashPassword, timingDummyHash, verifyPassword } from './passwords';
import type { TokenService } from './tokens';

const INVALID_CREDENTIALS = 'Email o contraseña incorrectos';
const TOO_MANY_LOGINS = 'Demasiados intentos de inicio de sesión. Intenta de nuevo en unos minutos.';
const TOO_MANY_SIGNUPS = 'Demasiados registros desde esta dirección. Intenta de nuevo más tarde.';
const INVALID_SESSION = 'Sesión inválida';

type UserRow = typeof users.$inferSelect;

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
  const revokeSessions = (userId: number) =>
    db
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
     * The user id of a valid, unrevoked session, or null. One primary-key lookup per request,
     * so a logout, a password change or a deleted account takes effect at once.
     */
    async sessionUser(token: string): Promise<number | null> {
      const claims = await tokens.verify(token);
      if (!claims) return null;
      const [row] = await db
        .select({ version: users.tokenVersion })
        .from(users)
        .where(eq(users.id, claims.userId))
        .limit(1);
      return row && row.version === claims.version ? claims.userId : null;
    },

    async logout(userId: number) {
      await revokeSessions(userId);
      return { success: true as const, message: 'Sesión cerrada' };
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
