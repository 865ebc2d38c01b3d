import { eq, sql } from 'drizzle-orm';
import type { LoginInput, RegisterInput, User } from '@masivo/contract/auth';
import type { Db } from '../../db/client';
import { users } from '../../db/schema/index';
import { AppError, conflict } from '../../lib/errors';
import type { LoginThrottle } from './login-throttle';
import { hashPassword, timingDummyHash, verifyPassword } from './passwords';
import type { TokenService } from './tokens';

const INVALID_CREDENTIALS = 'Email o contraseña incorrectos';

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

export function createAuthService(db: Db, tokens: TokenService, throttle: LoginThrottle) {
  const findByEmail = async (email: string) =>
    (await db.select().from(users).where(sql`lower(${users.email}) = lower(${email})`).limit(1))[0];

  const session = async (row: UserRow) => ({
    token: await tokens.issue({ userId: row.id, email: row.email }),
    user: toUser(row),
  });

  return {
    async register(input: RegisterInput) {
      const email = input.email.trim();
      if (await findByEmail(email)) throw conflict('Ya existe una cuenta con ese email');
      const passwordHash = await hashPassword(input.password);
      const inserted = await db
        .insert(users)
        .values({ email, passwordHash, firstName: input.first_name ?? '', lastName: input.last_name ?? '' })
        .onConflictDoNothing()
        .returning();
      // A concurrent registration with the same email lost the race on the unique index.
      if (!inserted[0]) throw conflict('Ya existe una cuenta con ese email');
      return session(inserted[0]);
    },

    async login(input: LoginInput, ip: string) {
      const email = input.email.trim();
      if (throttle.isBlocked(email, ip)) {
        throw new AppError(429, 'Demasiados intentos de inicio de sesión. Intenta de nuevo en unos minutos.');
      }
      const row = await findByEmail(email);
      const ok = row
        ? await verifyPassword(row.passwordHash, input.password)
        : (await verifyPassword(await timingDummyHash(), input.password), false);
      if (!row || !ok) {
        throttle.recordFailure(email, ip);
        throw new AppError(401, INVALID_CREDENTIALS);
      }
      throttle.recordSuccess(email);
      return session(row);
    },

    async me(userId: number) {
      const row = (await db.select().from(users).where(eq(users.id, userId)).limit(1))[0];
      if (!row) throw new AppError(401, 'Sesión inválida');
      return toUser(row);
    },
  };
}
export type AuthService = ReturnType<typeof createAuthService>;
