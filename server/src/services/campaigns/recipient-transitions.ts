import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { jsonParam, preparedRows, rowsOf } from '../../db/sql';
import { DEFERRED_MESSAGE, defersSql, exhaustedMessageSql, MARKETING_LIMIT_CODE } from './marketing-deferral';
import { MESSAGE_EXPIRED } from '../../integrations/whatsapp/marketing-messages';

/**
 * Every change of a recipient's state goes through one of the statements below. Each one
 * locks the rows it touches (in id order, so two writers never deadlock on recipients),
 * computes the new values from the locked, current version, writes only rows that really
 * change, and adds the before/after difference of each changed row to its campaign's
 * counters IN THE SAME STATEMENT. Counters are therefore exact at every commit, survive any
 * crash, and cost one UPDATE of the campaign row per batch instead of a recount.
 *
 * Counter meaning: messages_sent = sent_at set (Meta accepted it); delivered/read = their
 * timestamps set (read implies delivered); failed/skipped/unknown/deferred/expired = status
 * (expired: Meta dropped it after the template's time-to-live, "Vencido"); pending =
 * status pending or sending (not settled yet).
 */

/** Statuses a delivery report can still move forward from. */
const RANK_OF = (status: SQL) =>
  sql`(case ${status} when 'sent' then 3 when 'delivered' then 4 when 'read' then 5 else 0 end)`;

/**
 * `n` must be a CTE with: id, campaign_id, old_status, old_sent, old_delivered, old_read and
 * the new status, attempts, next_attempt_at, claimed_at, claim_owner, wamid, error_code,
 * error_message, sent_at, delivered_at, read_at, failed_at, deferrals, first_deferred_at.
 */
function writeAndCount(ctes: SQL, extra?: { set: SQL; changes: SQL }): SQL {
  return sql`with ${ctes},
  changed as (
    update campaign_recipients r set
      ${extra ? sql`${extra.set},` : sql``}
      status = n.status, attempts = n.attempts, next_attempt_at = n.next_attempt_at,
      claimed_at = n.claimed_at, claim_owner = n.claim_owner, wamid = n.wamid,
      error_code = n.error_code, error_message = n.error_message,
      sent_at = n.sent_at, delivered_at = n.delivered_at, read_at = n.read_at, failed_at = n.failed_at,
      deferrals = n.deferrals, first_deferred_at = n.first_deferred_at
    from n
    where r.id = n.id
      and ((r.status, r.attempts, r.next_attempt_at, r.wamid, r.error_code, r.error_message,
           r.sent_at, r.delivered_at, r.read_at, r.failed_at)
        is distinct from
          (n.status, n.attempts, n.next_attempt_at, n.wamid, n.error_code, n.error_message,
           n.sent_at, n.delivered_at, n.read_at, n.failed_at)
        ${extra ? sql`or ${extra.changes}` : sql``})
    returning r.id, r.campaign_id, n.old_status, r.status as new_status,
      n.old_sent, r.sent_at is not null as new_sent,
      n.old_delivered, r.delivered_at is not null as new_delivered,
      n.old_read, r.read_at is not null as new_read
  ),
  deltas as (
    select campaign_id,
      sum(new_sent::int - old_sent::int) as sent,
      sum(new_delivered::int - old_delivered::int) as delivered,
      sum(new_read::int - old_read::int) as read,
      sum((new_status = 'failed')::int - (old_status = 'failed')::int) as failed,
      sum((new_status = 'skipped')::int - (old_status = 'skipped')::int) as skipped,
      sum((new_status = 'unknown')::int - (old_status = 'unknown')::int) as unknown,
      sum((new_status = 'deferred')::int - (old_status = 'deferred')::int) as deferred,
      sum((new_status = 'expired')::int - (old_status = 'expired')::int) as expired,
      sum((new_status in ('pending', 'sending'))::int - (old_status in ('pending', 'sending'))::int) as pending
    from changed group by campaign_id
  ),
  bumped as (
    update campaigns c set
      messages_sent = c.messages_sent + d.sent,
      delivered_count = c.delivered_count + d.delivered,
      read_count = c.read_count + d.read,
      failed_count = c.failed_count + d.failed,
      skipped_count = c.skipped_count + d.skipped,
      unknown_count = c.unknown_count + d.unknown,
      deferred_count = c.deferred_count + d.deferred,
      expired_count = c.expired_count + d.expired,
      pending_count = c.pending_count + d.pending,
      updated_at = now()
    from deltas d
    where c.id = d.campaign_id
    returning c.id
  )
  select (select count(*) from changed)::int as changed, (select count(*) from bumped)::int as campaigns`;
}

/** The locked current version of the rows, with the "before" flags the counters need. */
const OLD_COLUMNS = sql.raw(`o.id, o.campaign_id, o.status as old_status, o.sent_at is not null as old_sent,
  o.delivered_at is not null as old_delivered, o.read_at is not null as old_read`);
/** The deferral columns kept as they are. */
const SAME_DEFERRALS = sql.raw(`o.deferrals, o.first_deferred_at`);

/**
 * No retry here: inside a transaction a deadlock aborts the whole transaction, so callers
 * retry at their level (retryOnConflict around the statement or the transaction).
 */
async function run(db: Db, statement: SQL): Promise<number> {
  const [row] = await preparedRows<{ changed: number | string }>(db, statement);
  return Number(row?.changed ?? 0);
}

// ---------------------------------------------------------------------------------------
// Delivery facts: the sender's "accepted" and the webhook statuses.

export interface DeliveryFact {
  recipientId: number;
  /** Meta's message id, when known. */
  wamid?: string | null;
  /** Accepted by Meta at (ISO); also implied by delivered/read. */
  sentAt?: string | null;
  deliveredAt?: string | null;
  readAt?: string | null;
  failed?: { at: string; code: number | null; message: string | null } | null;
  /** The sender's own acceptance carries the freshest wamid (a retried unknown gets a new one). */
  fromSender?: boolean;
  /** Meta's `pricing` of a status (a later one overrides an earlier one's), written with the fact. */
  pricing?: { category: string | null; type: string | null; model: string | null } | null;
  /** The person's BSUID a status named (`recipient_user_id`). */
  bsuid?: string | null;
}

/**
 * Applies what is known about the delivery of some recipients. Monotonic: read ≥ delivered ≥
 * sent; failed only before delivered; settled rows (failed, skipped) never move forward;
 * duplicates and any order give the same result. Callers merge facts per recipient first
 * (one fact per recipient per call). A status's pricing and BSUID go into the same row version
 * as its delivery fact (one write per recipient, not two), and only when they change something.
 */
export async function applyDeliveryFacts(db: Db, facts: DeliveryFact[]): Promise<number> {
  if (!facts.length) return 0;
  const input = facts.map((f) => ({
    id: f.recipientId,
    wamid: f.wamid ?? null,
    src: f.fromSender ? 'sender' : 'webhook',
    rnk: f.readAt ? 5 : f.deliveredAt ? 4 : f.sentAt ? 3 : 0,
    sent_ts: f.sentAt ?? f.deliveredAt ?? f.readAt ?? null,
    delivered_ts: f.deliveredAt ?? f.readAt ?? null,
    read_ts: f.readAt ?? null,
    failed: !!f.failed,
    failed_ts: f.failed?.at ?? null,
    error_code: f.failed?.code ?? null,
    error_message: f.failed?.message ?? null,
    pc: f.pricing?.category ?? null,
    pt: f.pricing?.type ?? null,
    pm: f.pricing?.model ?? null,
    bsuid: f.bsuid ?? null,
  }));
  const priced = input.some((f) => f.pc !== null || f.pt !== null || f.pm !== null || f.bsuid !== null);
  const forward = sql`(o.status not in ('failed', 'skipped', 'deferred', 'expired') and v.rnk > ${RANK_OF(sql`o.status`)})`;
  const fails = sql`(v.failed and v.rnk < 4 and o.status in ('pending', 'sending', 'unknown', 'sent'))`;
  const defers = sql`(${fails} and ${defersSql(sql`v.error_code`, sql`coalesce(v.failed_ts, now())`)})`;
  return run(
    db,
    writeAndCount(sql`
    v as (
      select * from jsonb_to_recordset(${jsonParam(input)}) as v(
        id bigint, wamid text, src text, rnk int, sent_ts timestamptz, delivered_ts timestamptz,
        read_ts timestamptz, failed boolean, failed_ts timestamptz, error_code int, error_message text,
        pc text, pt text, pm text, bsuid text)
    ),
    o as (
      -- = any(array(…)): an index lookup per id even without table statistics (the embedded
      -- database never analyzes by itself). Only rows this can change are locked: most
      -- webhook statuses repeat what the sender already wrote (sent) and cost nothing.
      -- FOR UPDATE re-checks the condition on the newest version of each row.
      select x.* from campaign_recipients x join v on v.id = x.id
      where x.id = any(array(select id from v)) and (
            (v.sent_ts is not null and x.sent_at is null)
         or (x.status not in ('failed', 'skipped', 'deferred', 'expired') and (
              v.rnk > ${RANK_OF(sql`x.status`)}
              or (v.delivered_ts is not null and x.delivered_at is null)
              or (v.read_ts is not null and x.read_at is null)))
         or (v.failed and v.rnk < 4 and x.status in ('pending', 'sending', 'unknown', 'sent'))
         or (v.wamid is not null and x.wamid is null)
         or (v.src = 'sender' and v.wamid is not null and x.wamid is distinct from v.wamid)
         ${priced ? sql`or (x.pricing_category, x.pricing_type, x.pricing_model, x.bsuid) is distinct from
              (coalesce(v.pc, x.pricing_category), coalesce(v.pt, x.pricing_type), coalesce(v.pm, x.pricing_model), coalesce(v.bsuid, x.bsuid))` : sql``})
      order by x.id for update of x
    ),
    n as (
      select s.id, s.campaign_id, s.old_status, s.old_sent, s.old_delivered, s.old_read,
        s.pricing_category, s.pricing_type, s.pricing_model, s.bsuid,
        s.new_status as status, s.attempts,
        case when s.defers then coalesce(s.failed_ts, now()) + interval '24 hours' else s.next_attempt_at end as next_attempt_at,
        s.claimed_at, s.claim_owner,
        case when s.src = 'sender' then coalesce(s.wamid_new, s.wamid_old) else coalesce(s.wamid_old, s.wamid_new) end as wamid,
        case when s.becomes_failed then s.v_error_code
             when s.new_status in ('sent', 'delivered', 'read') and s.old_status in ('pending', 'sending', 'unknown') then null
             else s.o_error_code end as error_code,
        case when s.defers then ${DEFERRED_MESSAGE}::text
             when s.becomes_failed and s.v_error_code = ${MARKETING_LIMIT_CODE} then s.exhausted_message
             when s.becomes_failed then s.v_error_message
             when s.new_status in ('sent', 'delivered', 'read') and s.old_status in ('pending', 'sending', 'unknown') then null
             else s.o_error_message end as error_message,
        coalesce(s.o_sent_at, s.sent_ts) as sent_at,
        case when s.new_status in ('failed', 'skipped', 'deferred', 'expired') then s.o_delivered_at else coalesce(s.o_delivered_at, s.delivered_ts) end as delivered_at,
        case when s.new_status in ('failed', 'skipped', 'deferred', 'expired') then s.o_read_at else coalesce(s.o_read_at, s.read_ts) end as read_at,
        case when s.defers then s.o_failed_at when s.becomes_failed then coalesce(s.failed_ts, now()) else s.o_failed_at end as failed_at,
        case when s.defers then s.deferrals + 1 else s.deferrals end as deferrals,
        case when s.defers then coalesce(s.first_deferred_at, s.failed_ts, now()) else s.first_deferred_at end as first_deferred_at
      from (
        select ${OLD_COLUMNS}, o.attempts, o.next_attempt_at, o.claimed_at, o.claim_owner,
          o.wamid as wamid_old, v.wamid as wamid_new, v.src,
          o.error_code as o_error_code, o.error_message as o_error_message,
          v.error_code as v_error_code, v.error_message as v_error_message,
          o.sent_at as o_sent_at, o.delivered_at as o_delivered_at, o.read_at as o_read_at, o.failed_at as o_failed_at,
          v.sent_ts, v.delivered_ts, v.read_ts, v.failed_ts, ${SAME_DEFERRALS},
          coalesce(v.pc, o.pricing_category) as pricing_category, coalesce(v.pt, o.pricing_type) as pricing_type,
          coalesce(v.pm, o.pricing_model) as pricing_model, coalesce(v.bsuid, o.bsuid) as bsuid,
          ${defers} as defers, ${exhaustedMessageSql} as exhausted_message,
          case when ${defers} then 'deferred' when ${fails} and v.error_code = ${MESSAGE_EXPIRED} then 'expired' when ${fails} then 'failed'
               when ${forward} then (case v.rnk when 3 then 'sent' when 4 then 'delivered' else 'read' end)
               else o.status end as new_status,
          ${fails} as becomes_failed
        from o join v on v.id = o.id join campaigns cp on cp.id = o.campaign_id
      ) s
    )`,
      priced
        ? {
            set: sql`pricing_category = n.pricing_category, pricing_type = n.pricing_type, pricing_model = n.pricing_model, bsuid = n.bsuid`,
            changes: sql`(r.pricing_category, r.pricing_type, r.pricing_model, r.bsuid) is distinct from (n.pricing_category, n.pricing_type, n.pricing_model, n.bsuid)`,
          }
        : undefined,
    ),
  );
}

// ---------------------------------------------------------------------------------------
// Outcomes of the sender's own claims that are not an acceptance.

export type ClaimOutcome =
  /** Transient error: try this recipient again after the delay. */
  | { recipientId: number; kind: 'retry'; delayMs: number; code: number | null; message: string }
  /** Permanent for this recipient. */
  | { recipientId: number; kind: 'failed'; code: number | null; message: string }
  /** Not sent on purpose (blacklisted since the audience was frozen). */
  | { recipientId: number; kind: 'skipped'; message: string }
  /** Claimed but never requested (pause, stop): back to pending, the attempt did not happen. */
  | { recipientId: number; kind: 'released' }
  /** Requested and refused for a reason that pauses the campaign: back to pending as it is. */
  | { recipientId: number; kind: 'requeue'; code: number | null; message: string };

/**
 * Settles rows this process claimed. A row is only touched while it is still ours and in
 * flight (sending, or unknown if recovery got there first), so a late flush cannot undo a
 * webhook's verdict or another process's work.
 */
export async function applyClaimOutcomes(db: Db, owner: string, outcomes: ClaimOutcome[]): Promise<number> {
  if (!outcomes.length) return 0;
  const input = outcomes.map((o) => ({
    id: o.recipientId,
    kind: o.kind,
    delay_ms: o.kind === 'retry' ? Math.max(0, Math.round(o.delayMs)) : 0,
    error_code: 'code' in o ? o.code : null,
    error_message: 'message' in o ? o.message : null,
  }));
  return run(
    db,
    writeAndCount(sql`
    v as (
      select * from jsonb_to_recordset(${jsonParam(input)}) as v(id bigint, kind text, delay_ms int, error_code int, error_message text)
    ),
    o as (
      select x.* from campaign_recipients x
      where x.id = any(array(select id from v)) and x.claim_owner = ${owner} and x.status in ('sending', 'unknown')
      order by x.id for update
    ),
    d as (
      select o.id, v.kind = 'failed' and ${defersSql(sql`v.error_code`, sql`now()`)} as defers, ${exhaustedMessageSql} as exhausted_message
      from o join v on v.id = o.id join campaigns cp on cp.id = o.campaign_id
    ),
    n as (
      select ${OLD_COLUMNS},
        case when d.defers then 'deferred' else (case v.kind when 'failed' then 'failed' when 'skipped' then 'skipped' else 'pending' end) end as status,
        case when v.kind = 'released' then greatest(o.attempts - 1, 0) else o.attempts end as attempts,
        case when d.defers then now() + interval '24 hours'
             when v.kind = 'retry' then now() + v.delay_ms * interval '1 millisecond' else o.next_attempt_at end as next_attempt_at,
        o.claimed_at, o.claim_owner, o.wamid,
        case when v.kind = 'released' then o.error_code when v.kind = 'skipped' then null else v.error_code end as error_code,
        case when d.defers then ${DEFERRED_MESSAGE}::text
             when v.kind = 'failed' and v.error_code = ${MARKETING_LIMIT_CODE} then d.exhausted_message
             when v.kind = 'released' then o.error_message else v.error_message end as error_message,
        o.sent_at, o.delivered_at, o.read_at,
        case when v.kind = 'failed' and not d.defers then now() else o.failed_at end as failed_at,
        case when d.defers then o.deferrals + 1 else o.deferrals end as deferrals,
        case when d.defers then coalesce(o.first_deferred_at, now()) else o.first_deferred_at end as first_deferred_at
      from o join v on v.id = o.id join d on d.id = o.id
    )`),
  );
}

// ---------------------------------------------------------------------------------------
// Recovery and the operator's retry.

export const UNKNOWN_MESSAGE = 'Sin confirmación de WhatsApp: el mensaje pudo haberse enviado o no';

/**
 * Rows in flight for longer than the grace period, with no webhook to settle them, become
 * unknown: their request left and its answer was lost, or the process that claimed them is
 * gone (its lease on the number expired, so it can no longer send them). A row claimed by a
 * live sender but not dispatched yet (queued behind its pacer) is NOT in flight: marking it
 * unknown would invite a retry that sends it twice. Never resent automatically; the
 * operator may retry them.
 */
export async function markStaleInFlightUnknown(db: Db, graceMs: number, limit = 5000): Promise<number> {
  const stale = sql`x.status = 'sending' and x.claimed_at < now() - ${graceMs} * interval '1 millisecond'
    and (x.dispatched_at < now() - ${graceMs} * interval '1 millisecond'
      or not exists (
        select 1 from campaigns c join sender_leases l on l.whatsapp_account_id = c.whatsapp_account_id
        where c.id = x.campaign_id and l.owner = x.claim_owner and l.expires_at > now()))`;
  // The common case, nothing stale, costs one index probe.
  const probe = await rowsOf(db, sql`select 1 from campaign_recipients x where ${stale} limit 1`);
  if (!probe.length) return 0;
  return run(
    db,
    writeAndCount(sql`
    o as (
      select x.* from campaign_recipients x
      where ${stale}
      order by x.id limit ${limit} for update skip locked
    ),
    n as (
      select ${OLD_COLUMNS}, 'unknown'::text as status, o.attempts, o.next_attempt_at, o.claimed_at, o.claim_owner,
        o.wamid, null::int as error_code, ${UNKNOWN_MESSAGE}::text as error_message,
        o.sent_at, o.delivered_at, o.read_at, o.failed_at, ${SAME_DEFERRALS}
      from o
    )`),
  );
}

/** Meta asks not to retry 131049 (per-user marketing limit) before 24 hours. */
const NOT_BEFORE_24H = 131049;

/**
 * The operator's retry of one kind of settled row (failed, or unknown) → pending; anyone
 * already sent, delivered or read is untouched.
 */
export async function requeueRecipients(db: Db, campaignId: number, status: 'failed' | 'unknown'): Promise<number> {
  return run(
    db,
    writeAndCount(sql`
    o as (
      select x.* from campaign_recipients x
      where x.campaign_id = ${campaignId} and x.status = ${status}
      order by x.id for update
    ),
    n as (
      select ${OLD_COLUMNS}, 'pending'::text as status, o.attempts,
        case when o.error_code = ${NOT_BEFORE_24H} then greatest(now(), coalesce(o.failed_at, now()) + interval '24 hours')
             else now() end as next_attempt_at,
        o.claimed_at, o.claim_owner, o.wamid, null::int as error_code, null::text as error_message,
        o.sent_at, o.delivered_at, o.read_at, null::timestamptz as failed_at,
        0 as deferrals, null::timestamptz as first_deferred_at
      from o
    )`),
  );
}

/**
 * Deferred recipients (131049) whose retry time came → pending, in campaigns that may send
 * (a cancelled one keeps them). Returns the ids of the campaigns they belong to.
 */
export async function wakeDeferred(db: Db, limit = 5000): Promise<number[]> {
  const due = await rowsOf<{ campaign_id: number }>(
    db,
    sql`select distinct campaign_id from (
          select x.campaign_id from campaign_recipients x join campaigns c on c.id = x.campaign_id
          where x.status = 'deferred' and x.next_attempt_at <= now() and c.status in ('sending', 'completed', 'paused')
          order by x.next_attempt_at limit ${limit}) t`,
  );
  if (!due.length) return [];
  await run(
    db,
    writeAndCount(sql`
    o as (
      select x.* from campaign_recipients x join campaigns c on c.id = x.campaign_id
      where x.status = 'deferred' and x.next_attempt_at <= now() and c.status in ('sending', 'completed', 'paused')
      order by x.id limit ${limit} for update of x skip locked
    ),
    n as (
      select ${OLD_COLUMNS}, 'pending'::text as status, o.attempts, now() as next_attempt_at,
        o.claimed_at, o.claim_owner, o.wamid, o.error_code, o.error_message,
        o.sent_at, o.delivered_at, o.read_at, o.failed_at, ${SAME_DEFERRALS}
      from o
    )`),
  );
  return due.map((r) => Number(r.campaign_id));
}

/** The outcome of an automatic campaign's event at its due time (engine/automations/resolve-due.ts). */
export interface WaitingOutcome {
  eventId: number;
  recipientId: number;
  /** pending: the sender's from now on; skipped: with `message`. */
  status: 'pending' | 'skipped';
  message: string | null;
  contactId: number | null;
  phone: string | null;
  phoneKey: string | null;
  bsuid: string | null;
  lead: unknown;
}

/**
 * waiting → pending or skipped, and the events resolved, in one statement with the counters
 * (pending_count, skipped_count; the recipient was counted in total_recipients when its event
 * arrived). Only rows still waiting change, so a repeated resolution changes nothing. The zone is
 * cleared: it is computed from the phone now known (recipient-zones-freeze.ts). Returns the
 * campaigns that got recipients to send.
 */
export async function resolveWaiting(db: Db, outcomes: WaitingOutcome[]): Promise<number[]> {
  if (!outcomes.length) return [];
  const rows = outcomes.map((o) => ({
    event_id: o.eventId,
    recipient_id: o.recipientId,
    status: o.status,
    message: o.message,
    contact_id: o.contactId,
    phone: o.phone,
    phone_key: o.status === 'pending' ? o.phoneKey : null,
    bsuid: o.bsuid,
    lead: o.lead ?? null,
  }));
  const changed = await rowsOf<{ campaign_id: number }>(
    db,
    sql`with o as (
        select * from jsonb_to_recordset(${jsonParam(rows)}) as o(event_id bigint, recipient_id bigint, status text, message text,
          contact_id bigint, phone text, phone_key text, bsuid text, lead jsonb)
      ),
      changed as (
        update campaign_recipients r set status = o.status, error_message = o.message, contact_id = o.contact_id,
          phone = o.phone, phone_key = o.phone_key, bsuid = o.bsuid, lead = o.lead, time_zone = null
        from o where r.id = o.recipient_id and r.status = 'waiting'
        returning r.campaign_id, r.status
      ),
      resolved as (
        update automation_events set resolved_at = now() where id in (select event_id from o) and resolved_at is null
      ),
      deltas as (
        select campaign_id, (count(*) filter (where status in ('pending')))::int as p, (count(*) filter (where status in ('skipped')))::int as s
        from changed group by campaign_id
      ),
      bumped as (
        update campaigns c set pending_count = c.pending_count + d.p, skipped_count = c.skipped_count + d.s, updated_at = now()
        from deltas d where c.id = d.campaign_id
      )
      select campaign_id from deltas where p > 0`,
  );
  return changed.map((r) => Number(r.campaign_id));
}
