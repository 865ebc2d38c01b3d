import { sql } from 'drizzle-orm';
import type { Role } from '@masivo/contract/organizations';
import type { AppContext } from '../../context';
import { rowsOf } from '../../db/sql';
import { recordActivity } from './activity-log';

interface From {
  ip: string;
  userAgent: string | null;
}

/** A sign-in, in the organisation the new session acts in; the target is named by its e-mail. */
export async function recordSignIn(ctx: AppContext, token: string, from: From, email: string): Promise<void> {
  const session = await ctx.auth.session(token);
  if (!session?.orgId) return;
  await recordActivity(ctx.db, { orgId: session.orgId, userId: session.userId, role: session.role, ...from }, {
    action: 'auth.login',
    target: { type: 'user', id: session.userId, name: email.trim() },
  });
}

/**
 * A refused sign-in has no organisation: it is recorded in every organisation of the user the
 * e-mail belongs to, so each one's managers see attempts on their members; an e-mail nobody
 * uses is recorded nowhere (activity_log.organization_id is required, and a stranger's typo
 * concerns no organisation). Never fails the answer: the 401 stays a 401.
 */
export async function recordFailedSignIn(ctx: AppContext, email: string, from: From): Promise<void> {
  try {
    const memberships = await rowsOf<{ user_id: number; organization_id: number; role: Role }>(
      ctx.db,
      sql`select u.id as user_id, m.organization_id, m.role from users u
          join organization_members m on m.user_id = u.id
          where lower(u.email) = lower(${email.trim()})`,
    );
    for (const m of memberships) {
      await recordActivity(ctx.db, { orgId: m.organization_id, userId: m.user_id, role: m.role, ...from }, {
        action: 'auth.login_failed',
        target: { type: 'user', id: m.user_id, name: email.trim() },
        outcome: 'denied',
        reason: 'Correo o contraseña incorrectos',
      });
    }
  } catch (err) {
    ctx.log.warn({ err }, 'activity log: failed sign-in not stored');
  }
}
