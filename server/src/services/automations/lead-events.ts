import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { jsonParam, rowsOf } from '../../db/sql';

/** A lead's move into a stage, as Kommo's webhooks and events API report it. */
export interface LeadStageEvent {
  leadId: number;
  pipelineId: number;
  statusId: number;
  oldStatusId: number | null;
  on: 'enter' | 'created';
  /** Unix seconds of the change. */
  at: number;
  source: 'webhook' | 'catchup';
}

/** The statuses of an automatic campaign that record events: switched on, or paused (sent on resume). */
const RECORDING = sql`c.status in ('sending', 'paused')`;

/**
 * Records lead events for the organisation's automatic campaigns whose trigger they match (the
 * Kommo account, pipeline and stage; a «Creado en la etapa» trigger only creations, an «Entra en
 * la etapa» trigger both moves and creations: a lead created in the stage entered it). Each new
 * event becomes one recipient, `waiting` until `at + delay_seconds`. The same event delivered
 * twice (Kommo's retries, the webhook and the catch-up both) hits the unique key of
 * automation_events and records nothing more. A deleted campaign no longer exists, a draft or a
 * completed one does not match: neither records anything.
 */
export async function recordLeadEvents(db: Db, account: { organizationId: number; accountId: number }, events: LeadStageEvent[]): Promise<void> {
  const valid = events.filter(
    (e) => Number.isSafeInteger(e.leadId) && Number.isSafeInteger(e.pipelineId) && Number.isSafeInteger(e.statusId) && Number.isFinite(e.at),
  );
  if (!valid.length) return;
  const rows = valid.map((e) => ({
    lead_id: e.leadId,
    pipeline_id: e.pipelineId,
    status_id: e.statusId,
    old_status_id: e.oldStatusId,
    kind: e.on === 'created' ? 'created' : 'enter',
    at: Math.floor(e.at),
    source: e.source === 'catchup' ? 'catchup' : 'webhook',
  }));
  await db.transaction(async (tx) => {
    // The events first: only those new to their campaign get a recipient.
    const inserted = await rowsOf<{ id: number }>(
      tx,
      sql`insert into automation_events (campaign_id, user_id, kommo_account_id, lead_id, pipeline_id, status_id, old_status_id,
            kind, event_at, due_at, source)
          select c.id, c.user_id, c.kommo_account_id, e.lead_id, e.pipeline_id, e.status_id, e.old_status_id, e.kind,
            to_timestamp(e.at), to_timestamp(e.at) + make_interval(secs => coalesce((c.automation_trigger ->> 'delay_seconds')::int, 0)), e.source
          from jsonb_to_recordset(${jsonParam(rows)}) as e(lead_id bigint, pipeline_id bigint, status_id bigint, old_status_id bigint,
            kind text, at bigint, source text)
          join campaigns c on c.user_id = ${account.organizationId}::int and c.kommo_account_id = ${account.accountId}::int
            and c.audience_kind = 'automatic' and ${RECORDING}
            and (c.automation_trigger ->> 'pipeline_id')::bigint = e.pipeline_id
            and (c.automation_trigger ->> 'status_id')::bigint = e.status_id
            and (c.automation_trigger ->> 'on' = 'enter' or e.kind = 'created')
          order by e.at, e.lead_id
          on conflict on constraint automation_events_event_key do nothing
          returning id`,
    );
    if (!inserted.length) return;
    const ids = inserted.map((r) => Number(r.id));
    // One waiting recipient per new event (its due time as next_attempt_at, for the list's
    // «Programado para…»), linked back to its event; the campaign counts it in the same statement.
    await tx.execute(sql`with ev as (
        select id, campaign_id, user_id, lead_id, due_at from automation_events
        where id in (select jsonb_array_elements_text(${jsonParam(ids)})::bigint)
      ),
      recs as (
        insert into campaign_recipients (campaign_id, user_id, status, next_attempt_at, lead_id)
        select campaign_id, user_id, 'waiting', due_at, lead_id from ev order by id
        returning id, campaign_id, lead_id, next_attempt_at
      ),
      linked as (
        update automation_events a set recipient_id = r.id
        from recs r where a.id in (select id from ev) and a.campaign_id = r.campaign_id and a.lead_id = r.lead_id and a.due_at = r.next_attempt_at
        returning a.id
      )
      update campaigns c set total_recipients = c.total_recipients + n.n, updated_at = now()
      from (select campaign_id, count(*)::int as n from recs group by campaign_id) n
      where c.id = n.campaign_id`);
  });
}

/**
 * Whether the organisation has an automatic campaign on this Kommo account that records events
 * (switched on or paused): the inbound side subscribes to lead events only then.
 */
export async function automationsNeedLeadEvents(db: Db, orgId: number, accountId: number): Promise<boolean> {
  const [row] = await rowsOf<{ n: number }>(
    db,
    sql`select 1 as n from campaigns c
        where c.user_id = ${orgId}::int and c.kommo_account_id = ${accountId}::int and c.audience_kind = 'automatic' and ${RECORDING}
        limit 1`,
  );
  return Boolean(row);
}
