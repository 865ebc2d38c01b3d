import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { rowsOf, type Queryable } from '../../db/sql';

/** Replies are attributed up to 72 h after the send, so late events are looked for that long. */
export const LATE_WINDOW_HOURS = 72;
/** Campaigns taken into the queue per sweep. */
const CAMPAIGNS_PER_SWEEP = 20;

/** Recipients with a result worth a note: the message left (or failed); pending, skipped, unknown ones are not written. */
const RESULT_STATUSES = sql`('sent', 'delivered', 'read', 'failed')`;

/**
 * The person opted out: in the tenant's opt-outs, or on the Kommo account's blacklist by their
 * own request (keyword, button) or Meta's marketing stop — not entries the operator typed.
 */
const optedOut = sql`(
  exists (select 1 from opt_outs o where o.user_id = r.user_id and o.phone_key = r.phone_key)
  or exists (select 1 from blacklist b where b.account_id = k.id and b.phone_key = r.phone_key and b.origin <> 'manual'))`;

/** The note's outcome text; the same words as writebackNoteText in the contract. */
const outcome = sql`case
  when r.replied_at is not null then 'respondió'
  when r.status = 'read' then 'leído'
  when r.status = 'delivered' then 'entregado'
  when r.status = 'sent' then 'enviado'
  else 'falló (' || coalesce(nullif(left(btrim(r.error_message), 200), ''), 'código ' || r.error_code::text, 'motivo desconocido') || ')'
end`;

/** The first stage of an item: what it has to write first. */
const firstStage = (note: string, tags: string, move: string) =>
  sql.raw(`case when ${note} is not null then 'note' when cardinality(${tags}) > 0 then 'tags' when ${move} then 'lead' else 'done' end`);

/**
 * Takes completed campaigns of accounts with write-back on into the queue: one row per campaign
 * and one item per recipient with a Kommo contact, in one transaction (all or nothing). Only
 * campaigns completed after write-back was switched on.
 */
export async function enqueueCompleted(db: Db): Promise<number[]> {
  return db.transaction(async (tx) => {
    const created = await rowsOf<{ campaign_id: number }>(tx, sql`
      insert into kommo_writebacks (campaign_id, user_id, kommo_account_id, late_until)
      select c.id, c.user_id, k.id, now() + make_interval(hours => ${LATE_WINDOW_HOURS})
      from campaigns c
      join kommo_accounts k on k.id = c.kommo_account_id and k.user_id = c.user_id
      where c.status = 'completed' and k.writeback_enabled and k.writeback_enabled_at is not null
        and c.completed_at >= k.writeback_enabled_at
        and not exists (select 1 from kommo_writebacks w where w.campaign_id = c.id)
      order by c.completed_at
      limit ${CAMPAIGNS_PER_SWEEP}
      on conflict do nothing
      returning campaign_id`);
    for (const { campaign_id } of created) await insertResultItems(tx, campaign_id);
    return created.map((r) => r.campaign_id);
  });
}

/**
 * An automatic campaign's recipient is settled for the write-back once Meta said delivered,
 * read or failed, or ten minutes after a send nobody confirmed: its note then says what a
 * campaign's note says at completion.
 */
const SETTLED_AUTOMATIC = sql`(r.status in ('delivered', 'read', 'failed') or (r.status = 'sent' and r.sent_at < now() - interval '10 minutes'))`;

async function insertResultItems(tx: Queryable, campaignId: number, automatic = false): Promise<number> {
  const rows = await rowsOf<{ id: number }>(tx, sql`
    insert into kommo_writeback_items (campaign_id, user_id, recipient_id, kommo_contact_id, kind, covers, note_text, tags, move_lead, stage)
    select campaign_id, user_id, recipient_id, kommo_contact_id, 'result', covers, note_text, tags, move_lead,
           ${firstStage('note_text', 'tags', 'move_lead')}
    from (
      select r.campaign_id, r.user_id, r.id as recipient_id, ct.kommo_id as kommo_contact_id,
             array_remove(array[case when r.replied_at is not null then 'reply' end, case when oo.v then 'opt_out' end], null) as covers,
             case when k.writeback_notes then 'Campaña ' || c.name || ': ' || ${outcome} end as note_text,
             array_remove(array[
               case when oo.v then nullif(k.writeback_opt_out_tag, '') end,
               case when r.replied_at is not null then nullif(k.writeback_reply_tag, '') end], null) as tags,
             (r.replied_at is not null and k.writeback_status_id is not null) as move_lead
      from campaign_recipients r
      join campaigns c on c.id = r.campaign_id
      join kommo_accounts k on k.id = c.kommo_account_id and k.user_id = r.user_id
      join contacts ct on ct.id = r.contact_id and ct.account_id = k.id and ct.user_id = r.user_id
      cross join lateral (select ${optedOut} as v) oo
      where r.campaign_id = ${campaignId} and r.status in ${RESULT_STATUSES}
        ${automatic ? sql`and ${SETTLED_AUTOMATIC} and not exists (
          select 1 from kommo_writeback_items i where i.campaign_id = r.campaign_id and i.recipient_id = r.id and i.kind = 'result')` : sql``}
    ) s
    on conflict do nothing
    returning id`);
  return rows.length;
}

/**
 * Automatic campaigns never complete: while one is on or paused (of an account with write-back
 * on), it has a write-back row whose late window keeps moving, so enqueueLate visits it every
 * period and takes its newly settled recipients in (a note per message), besides its replies and
 * opt-outs. Each visit reads the campaign's recipients in result statuses by its status index.
 */
export async function enqueueAutomatic(db: Db): Promise<void> {
  await db.execute(sql`
    insert into kommo_writebacks (campaign_id, user_id, kommo_account_id, late_until)
    select c.id, c.user_id, k.id, now() + make_interval(hours => ${LATE_WINDOW_HOURS})
    from campaigns c
    join kommo_accounts k on k.id = c.kommo_account_id and k.user_id = c.user_id
    where c.audience_kind = 'automatic' and c.status in ('sending', 'paused')
      and k.writeback_enabled and k.writeback_enabled_at is not null
    on conflict (campaign_id) do update set late_until = excluded.late_until
      where kommo_writebacks.late_until < now() + make_interval(hours => ${LATE_WINDOW_HOURS - 1})`);
}

/**
 * Late events of campaigns still in their window: a reply that arrived after the campaign's
 * items were made (a note "respondió", the reply tag, the lead move), an opt-out after it (the
 * opt-out tag). Each event is written once: `covers` tells what an item already wrote.
 */
export async function enqueueLate(db: Db, everyMs: number): Promise<number> {
  const due = await rowsOf<{ campaign_id: number }>(db, sql`
    update kommo_writebacks set late_checked_at = now()
    where campaign_id in (
      select campaign_id from kommo_writebacks
      where late_until > now() and (late_checked_at is null or late_checked_at < now() - make_interval(secs => ${everyMs / 1000}))
      limit 50)
    returning campaign_id`);
  let added = 0;
  for (const { campaign_id } of due) {
    added += await db.transaction(async (tx) => {
      const replies = await rowsOf<{ id: number }>(tx, sql`
        insert into kommo_writeback_items (campaign_id, user_id, recipient_id, kommo_contact_id, kind, covers, note_text, tags, move_lead, stage)
        select campaign_id, user_id, recipient_id, kommo_contact_id, 'reply', array['reply'], note_text, tags, move_lead,
               ${firstStage('note_text', 'tags', 'move_lead')}
        from (
          select r.campaign_id, r.user_id, r.id as recipient_id, ct.kommo_id as kommo_contact_id,
                 case when k.writeback_notes then 'Campaña ' || c.name || ': respondió' end as note_text,
                 array_remove(array[nullif(k.writeback_reply_tag, '')], null) as tags,
                 (k.writeback_status_id is not null) as move_lead
          from campaign_recipients r
          join campaigns c on c.id = r.campaign_id
          join kommo_accounts k on k.id = c.kommo_account_id and k.user_id = r.user_id
          join contacts ct on ct.id = r.contact_id and ct.account_id = k.id and ct.user_id = r.user_id
          where r.campaign_id = ${campaign_id} and r.replied_at is not null
            and not exists (select 1 from kommo_writeback_items i where i.campaign_id = r.campaign_id and i.recipient_id = r.id and 'reply' = any(i.covers))
        ) s
        on conflict do nothing
        returning id`);
      const optOuts = await rowsOf<{ id: number }>(tx, sql`
        insert into kommo_writeback_items (campaign_id, user_id, recipient_id, kommo_contact_id, kind, covers, tags, stage)
        select r.campaign_id, r.user_id, r.id, ct.kommo_id, 'opt_out', array['opt_out'], array[k.writeback_opt_out_tag], 'tags'
        from campaign_recipients r
        join campaigns c on c.id = r.campaign_id
        join kommo_accounts k on k.id = c.kommo_account_id and k.user_id = r.user_id
        join contacts ct on ct.id = r.contact_id and ct.account_id = k.id and ct.user_id = r.user_id
        where r.campaign_id = ${campaign_id} and r.status in ${RESULT_STATUSES}
          and nullif(k.writeback_opt_out_tag, '') is not null and ${optedOut}
          and not exists (select 1 from kommo_writeback_items i where i.campaign_id = r.campaign_id and i.recipient_id = r.id and 'opt_out' = any(i.covers))
        on conflict do nothing
        returning id`);
      const automatic = await rowsOf<{ id: number }>(tx, sql`select id from campaigns where id = ${campaign_id} and audience_kind = 'automatic'`);
      const results = automatic.length > 0 ? await insertResultItems(tx, campaign_id, true) : 0;
      const n = replies.length + optOuts.length + results;
      if (n > 0) await tx.execute(sql`update kommo_writebacks set finished_at = null, updated_at = now() where campaign_id = ${campaign_id}`);
      return n;
    });
  }
  return added;
}
