import { sql, type SQL } from 'drizzle-orm';

/**
 * Meta's per-user marketing limit (131049): the person got too many marketing messages from
 * all businesses lately, and Meta asks not to try again before 24 h. Such a recipient is
 * DEFERRED, not failed: retried no earlier than 24 h after the refusal, at most
 * `deferred_max_attempts` more times (campaign, default 2), and only while the retry still
 * falls within `deferred_window_hours` (default 72) of the first refusal. After that it fails
 * with the reason.
 *
 * How a campaign settles: deferred rows are not "pending", so the campaign completes once
 * everything else is settled and shows "Completada · N diferidos pendientes". When a deferred
 * row's time comes, the scheduler turns it back to pending and a completed campaign sends
 * again (reopenAfterRetry), then completes again; a paused one waits for "Iniciar".
 */
export const MARKETING_LIMIT_CODE = 131049;
export const DEFERRED_MESSAGE = 'Diferido: límite de marketing de Meta';

/** SQL: whether a 131049 at `at` may be deferred again, for row `o` of campaign `cp`. */
export function defersSql(code: SQL, at: SQL): SQL {
  return sql`(${code} = ${MARKETING_LIMIT_CODE} and o.deferrals < cp.deferred_max_attempts
    and coalesce(o.first_deferred_at, ${at}) + cp.deferred_window_hours * interval '1 hour' >= ${at} + interval '24 hours')`;
}

/** SQL: the reason of a 131049 no longer deferred (attempts or window used up). */
export const exhaustedMessageSql: SQL = sql`('Límite de marketing de Meta (131049): no se entregó en ' || (o.deferrals + 1)::text
  || case when o.deferrals = 0 then ' intento' else ' intentos' end)`;
