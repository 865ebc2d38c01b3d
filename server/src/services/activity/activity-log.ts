import { sql, type SQL } from 'drizzle-orm';
import type { Role } from '@masivo/contract/organizations';
import { jsonParam, rowsOf, type Queryable } from '../../db/sql';

/** Who did it, from where: a member through a request, or the engine ("sistema"). */
export interface ActivityActor {
  orgId: number;
  userId: number | null;
  role: Role | null;
  ip?: string | null;
  userAgent?: string | null;
  /** Another system's API key the action was made with: the entry names it ("clave «Tienda»"). */
  apiKey?: { id: number; name: string } | null;
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
                                  target_name, changes, detail, ip, user_agent, outcome, reason, actor_api_key_id)
        select ${actor.orgId}, ${actor.userId},
               coalesce(${actor.apiKey ? `clave «${actor.apiKey.name}»` : null}::text,
                        (select coalesce(nullif(trim(first_name || ' ' || last_name), ''), email) from users where id = ${actor.userId}), 'sistema'),
               ${actor.role}, ${entry.action}, ${entry.target?.type ?? null}, ${entry.target ? String(entry.target.id) : null},
               ${entry.target?.name ?? null}, ${entry.changes ? jsonParam(entry.changes) : null}, ${entry.detail ? jsonParam(entry.detail) : null},
               ${actor.ip ?? null}, ${actor.userAgent ?? null}, ${entry.outcome ?? 'done'}, ${entry.reason ?? null},
               ${actor.apiKey?.id ?? null}::int
         where exists (select 1 from organizations where id = ${actor.orgId})`,
  );
}

/** Field names whose values never reach the log, whatever object they come in. */
const SECRET_KEY = /token|secret|password|passwd|api_key|apikey|authorization|hash/i;

/** A copy of `value` without secret fields, at any depth (a token inside a nested object too). */
export function withoutSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (!SECRET_KEY.test(k)) out[k] = withoutSecrets(v);
    return out;
  }
  return value;
}

/**
 * The fields that differ between two views of an object, as `{ before, after }`, secrets left
 * out. A creation passes `before` null (every field is "after"), a removal `after` null. Null
 * when nothing changed.
 */
export function changesOf(
  before: Record<string, unknown> | null | undefined,
  after: Record<string, unknown> | null | undefined,
  ignore: readonly string[] = ['updated_at', 'created_at', 'id'],
): ActivityEntry['changes'] {
  const b = (withoutSecrets(before ?? {}) as Record<string, unknown>) ?? {};
  const a = (withoutSecrets(after ?? {}) as Record<string, unknown>) ?? {};
  const keys = new Set([...Object.keys(b), ...Object.keys(a)].filter((k) => !ignore.includes(k)));
  const changedBefore: Record<string, unknown> = {};
  const changedAfter: Record<string, unknown> = {};
  for (const k of keys) {
    if (JSON.stringify(b[k]) === JSON.stringify(a[k])) continue;
    if (before && k in b) changedBefore[k] = b[k];
    if (after && k in a) changedAfter[k] = a[k];
  }
  if (!Object.keys(changedBefore).length && !Object.keys(changedAfter).length) return null;
  return {
    ...(before ? { before: changedBefore } : {}),
    ...(after ? { after: changedAfter } : {}),
  };
}

/**
 * A campaign status write by the engine, with its log entries in the same statement: `update`
 * is an UPDATE of campaigns ending in `returning id, user_id, name, status, <old status> as
 * old_status`. Each moved campaign gets one "sistema" entry in its organisation (campaigns.user_id
 * is the organisation), unless its status did not actually change (a paused campaign given a
 * more precise reason). One statement per transition, never per message: the send path only
 * reaches here when a campaign changes status. Returns the moved campaigns' ids.
 */
export function withSystemEntries(update: SQL, log: { action: string; reason?: string | null }): SQL {
  const detail = log.reason ? jsonParam({ reason: log.reason }) : sql`null::jsonb`;
  return sql`with moved as (${update}),
    logged as (
      insert into activity_log (organization_id, actor_name, action, target_type, target_id, target_name, changes, detail)
      select user_id, 'sistema', ${log.action}, 'campaign', id::text, name,
             jsonb_build_object('before', jsonb_build_object('status', old_status), 'after', jsonb_build_object('status', status)),
             ${detail}
      from moved
      -- A tenant always has its organisation (a sign-up founds both, 0033 founded one per user);
      -- should a row say otherwise, the campaign still moves and only its entry is skipped.
      where old_status is distinct from status and exists (select 1 from organizations o where o.id = moved.user_id))
    select id from moved`;
}
