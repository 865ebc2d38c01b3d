import { sql } from 'drizzle-orm';
import type { Role } from '@masivo/contract/organizations';
import { jsonParam, rowsOf, type Queryable } from '../../db/sql';

/** Who did it, from where: a member through a request, or the engine ("sistema"). */
export interface ActivityActor {
  orgId: number;
  userId: number | null;
  role: Role | null;
  ip?: string | null;
  userAgent?: string | null;
}

export const SYSTEM = (orgId: number): ActivityActor => ({ orgId, userId: null, role: null });

export interface ActivityEntry {
  /** `campaign.start`, `member.update`, `contacts.export`… (the activity page names each in Spanish). */
  action: string;
  target?: { type: string; id: string | number; name?: string | null } | null;
  /** The changed fields before and after; callers leave secrets out. */
  changes?: { before?: Record<string, unknown>; after?: Record<string, unknown> } | null;
  /** Anything else worth keeping: an export's row count and filter, a pause's reason. */
  detail?: Record<string, unknown> | null;
  outcome?: 'done' | 'denied';
  reason?: string | null;
}

/**
 * Appends one entry. The actor's name is read in the same statement, so the entry keeps the
 * name as it was when it happened. Runs inside the caller's transaction when given one, so an
 * action and its entry commit together.
 */
export async function recordActivity(db: Queryable, actor: ActivityActor, entry: ActivityEntry): Promise<void> {
  await rowsOf(
    db,
    sql`insert into activity_log (organization_id, actor_user_id, actor_name, actor_role, action, target_type, target_id,
                                  target_name, changes, detail, ip, user_agent, outcome, reason)
        select ${actor.orgId}, ${actor.userId},
               coalesce((select coalesce(nullif(trim(first_name || ' ' || last_name), ''), email) from users where id = ${actor.userId}), 'sistema'),
               ${actor.role}, ${entry.action}, ${entry.target?.type ?? null}, ${entry.target ? String(entry.target.id) : null},
               ${entry.target?.name ?? null}, ${entry.changes ? jsonParam(entry.changes) : null}, ${entry.detail ? jsonParam(entry.detail) : null},
               ${actor.ip ?? null}, ${actor.userAgent ?? null}, ${entry.outcome ?? 'done'}, ${entry.reason ?? null}`,
  );
}
