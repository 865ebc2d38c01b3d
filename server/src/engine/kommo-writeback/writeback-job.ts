import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { jsonParam, rowsOf } from '../../db/sql';
import { KommoError } from '../../integrations/kommo/errors';
import type { KommoCredentials } from '../../integrations/kommo/types';
import { isOpenLead, KOMMO_BATCH_LIMIT, type KommoWriteApi } from '../../integrations/kommo/write-api';
import { JobLeaseLost } from '../../jobs/errors';

/**
 * Writes one campaign's items to Kommo, batch after batch, until none is left or Kommo fails the
 * account. Each item moves note → tags → lead → done; every move is committed before the next
 * request, so a restart resumes exactly where the last commit left it.
 *
 * Notes are not idempotent in Kommo. Before a notes request its items are committed as
 * 'note_unsure' (with the time); after Kommo's answer they move on with the note's id. An item
 * found 'note_unsure' (a crash between the answer and the commit, a lost answer, a 5xx) is never
 * simply re-sent: the worker first reads the contact's notes back from Kommo and takes a note
 * with the same text written since then as its own. So each note is written once, unless
 * Kommo's list lags its own writes. Tags (adding a tag twice changes nothing) and lead moves
 * (moving to the stage it is in changes nothing) are at-least-once.
 */

export interface WritebackItem {
  id: number;
  kommo_contact_id: number;
  note_text: string | null;
  tags: string[];
  move_lead: boolean;
  stage: string;
  attempts: number;
  note_sent_at: Date | string | null;
}

export interface WritebackAccount {
  id: number;
  creds: KommoCredentials;
  pipelineId: number | null;
  statusId: number | null;
}

export interface JobDeps {
  db: Db;
  api: KommoWriteApi;
  /** Renews the lease; false when another process owns the write-back now. */
  keepLease(): Promise<boolean>;
  /** Tests: runs after Kommo answered a write (notes, tags, lead moves), before the answer is committed (a throw = a crash there). */
  afterAnswered?: (campaignId: number, stage: 'note' | 'tags' | 'lead') => Promise<void> | void;
  batchSize?: number;
}

/** Times a note is tried (sent, or found missing after an unsure send) before the item fails. */
export const MAX_NOTE_ATTEMPTS = 4;
/** Seconds before an unsure send its note may carry as created_at (clocks differ). */
const CLOCK_MARGIN_S = 120;

export const NOTE_UNCONFIRMED = 'No se pudo confirmar la nota en Kommo después de varios intentos.';

/** Another process owns the write-back now: stop without an outcome. */
export class LeaseGone extends JobLeaseLost {}

type Stage = 'note_unsure' | 'note' | 'tags' | 'lead';

/** After a note: tags, then the lead move, then done. */
const afterNote = sql.raw(`case when cardinality(tags) > 0 then 'tags' when move_lead then 'lead' else 'done' end`);
const afterTags = sql.raw(`case when move_lead then 'lead' else 'done' end`);

export async function runWritebackJob(deps: JobDeps, campaignId: number, account: WritebackAccount, signal: AbortSignal): Promise<void> {
  const { db } = deps;
  const size = Math.min(deps.batchSize ?? KOMMO_BATCH_LIMIT, KOMMO_BATCH_LIMIT);

  // bigint columns come back as strings from node-postgres and as numbers from PGlite: numbers here.
  const batch = async (stage: Stage) =>
    (
      await rowsOf<WritebackItem>(db, sql`
        select id, kommo_contact_id, note_text, tags, move_lead, stage, attempts, note_sent_at
        from kommo_writeback_items where campaign_id = ${campaignId} and stage = ${stage} order by id limit ${size}`)
    ).map((r) => ({ ...r, id: Number(r.id), kommo_contact_id: Number(r.kommo_contact_id), attempts: Number(r.attempts) }));

  /** Which batch next: unsure notes first, then full batches of tags or leads, then notes, then what is left. */
  async function next(): Promise<[Stage, WritebackItem[]] | null> {
    const unsure = await batch('note_unsure');
    if (unsure.length) return ['note_unsure', unsure];
    const tags = await batch('tags');
    if (tags.length >= size) return ['tags', tags];
    const leads = await batch('lead');
    if (leads.length >= size) return ['lead', leads];
    const notes = await batch('note');
    if (notes.length) return ['note', notes];
    if (tags.length) return ['tags', tags];
    if (leads.length) return ['lead', leads];
    return null;
  }

  for (;;) {
    signal.throwIfAborted();
    if (!(await deps.keepLease())) throw new LeaseGone();
    const found = await next();
    if (!found) return;
    const [stage, items] = found;
    if (stage === 'note_unsure') await reconcileNotes(items);
    else if (stage === 'note') await writeNotes(items);
    else if (stage === 'tags') await writeTags(items);
    else await moveLeads(items);
  }

  async function setStage(ids: number[], stage: Stage | 'done' | SQL, error: string | null = null) {
    if (ids.length === 0) return;
    await db.execute(sql`
      update kommo_writeback_items set stage = ${stage}, error = ${error}, updated_at = now()
      where campaign_id = ${campaignId} and id in (select (value)::bigint from jsonb_array_elements_text(${jsonParam(ids)}))`);
  }

  async function failEach(refused: Array<{ id: number; reason: string }>) {
    if (refused.length === 0) return;
    await db.execute(sql`
      update kommo_writeback_items i set stage = 'failed', error = f.reason, updated_at = now()
      from jsonb_to_recordset(${jsonParam(refused)}) as f(id bigint, reason text)
      where i.campaign_id = ${campaignId} and i.id = f.id`);
  }

  async function writeNotes(items: WritebackItem[]) {
    const ids = items.map((i) => i.id);
    // The intent first: from here on a restart reads the notes back before writing again.
    await db.execute(sql`
      update kommo_writeback_items set stage = 'note_unsure', note_sent_at = now(), attempts = attempts + 1, updated_at = now()
      where campaign_id = ${campaignId} and id in (select (value)::bigint from jsonb_array_elements_text(${jsonParam(ids)}))`);
    let created;
    try {
      created = await deps.api.addContactNotes(
        account.creds,
        items.map((i) => ({ entityId: Number(i.kommo_contact_id), text: i.note_text!, requestId: String(i.id) })),
        signal,
      );
    } catch (err) {
      if (err instanceof KommoError && err.refused) {
        // Kommo refused these and did nothing of the batch: they fail, the others are sent again.
        const byId = new Map(err.refused.map((r) => [r.requestId, r.detail]));
        const refused = items.filter((i) => byId.has(String(i.id)));
        await failEach(refused.map((i) => ({ id: i.id, reason: `Kommo rechazó la nota: ${byId.get(String(i.id))}` })));
        await setStage(items.filter((i) => !byId.has(String(i.id))).map((i) => i.id), 'note');
        if (refused.length > 0) return;
      }
      // A clear refusal (4xx, 429 past retries) wrote nothing; an unsure failure stays 'note_unsure'.
      if (err instanceof KommoError && !err.unsure && !err.refused) await setStage(ids, 'note');
      throw err;
    }
    await deps.afterAnswered?.(campaignId, 'note');
    const known = new Set(ids);
    const done = created.filter((c) => known.has(Number(c.requestId))).map((c) => ({ id: Number(c.requestId), note_id: c.id }));
    await db.execute(sql`
      update kommo_writeback_items i set stage = ${afterNote}, note_id = d.note_id, error = null, updated_at = now()
      from jsonb_to_recordset(${jsonParam(done)}) as d(id bigint, note_id bigint)
      where i.campaign_id = ${campaignId} and i.id = d.id and i.stage = 'note_unsure'`);
  }

  async function reconcileNotes(items: WritebackItem[]) {
    const sentAt = items.map((i) => (i.note_sent_at ? new Date(i.note_sent_at).getTime() : Date.now()));
    const since = Math.min(...sentAt) / 1000 - CLOCK_MARGIN_S;
    const contactIds = [...new Set(items.map((i) => Number(i.kommo_contact_id)))];
    const listed = await deps.api.contactNotes(account.creds, contactIds, Math.floor(since), signal);
    // Notes already claimed by an item of this campaign are not anyone else's.
    const claimed = new Set(
      (
        await rowsOf<{ note_id: string }>(db, sql`
          select note_id from kommo_writeback_items
          where campaign_id = ${campaignId} and note_id is not null
            and kommo_contact_id in (select (value)::bigint from jsonb_array_elements_text(${jsonParam(contactIds)}))`)
      ).map((r) => Number(r.note_id)),
    );
    const found: Array<{ id: number; note_id: number }> = [];
    const again: number[] = [];
    const failed: Array<{ id: number; reason: string }> = [];
    for (const item of items) {
      const note = listed.find((n) => n.entityId === Number(item.kommo_contact_id) && n.text === item.note_text && !claimed.has(n.id));
      if (note) {
        claimed.add(note.id);
        found.push({ id: item.id, note_id: note.id });
      } else if (item.attempts >= MAX_NOTE_ATTEMPTS) failed.push({ id: item.id, reason: NOTE_UNCONFIRMED });
      else again.push(item.id);
    }
    await db.transaction(async (tx) => {
      await tx.execute(sql`
        update kommo_writeback_items i set stage = ${afterNote}, note_id = d.note_id, error = null, updated_at = now()
        from jsonb_to_recordset(${jsonParam(found)}) as d(id bigint, note_id bigint)
        where i.campaign_id = ${campaignId} and i.id = d.id`);
      await tx.execute(sql`
        update kommo_writeback_items set stage = 'note', updated_at = now()
        where campaign_id = ${campaignId} and id in (select (value)::bigint from jsonb_array_elements_text(${jsonParam(again)}))`);
      await tx.execute(sql`
        update kommo_writeback_items i set stage = 'failed', error = f.reason, updated_at = now()
        from jsonb_to_recordset(${jsonParam(failed)}) as f(id bigint, reason text)
        where i.campaign_id = ${campaignId} and i.id = f.id`);
    });
  }

  async function writeTags(items: WritebackItem[]) {
    // One entry per contact (an item of the result and a late one may share a contact).
    const perContact = new Map<number, Set<string>>();
    for (const i of items) {
      const set = perContact.get(Number(i.kommo_contact_id)) ?? new Set<string>();
      for (const t of i.tags) set.add(t);
      perContact.set(Number(i.kommo_contact_id), set);
    }
    const entries = [...perContact].map(([contactId, tags]) => ({ contactId, tags: [...tags] }));
    try {
      await deps.api.addContactTags(account.creds, entries, signal);
    } catch (err) {
      if (!(err instanceof KommoError && err.refused)) throw err;
      const refusedContacts = new Map(err.refused.map((r) => [entries[Number(r.requestId)]?.contactId, r.detail]));
      await failEach(
        items.filter((i) => refusedContacts.has(Number(i.kommo_contact_id))).map((i) => ({ id: i.id, reason: `Kommo rechazó las etiquetas: ${refusedContacts.get(Number(i.kommo_contact_id))}` })),
      );
      return; // the others are sent again in the next batch
    }
    await deps.afterAnswered?.(campaignId, 'tags');
    await setStage(items.map((i) => i.id), afterTags);
  }

  async function moveLeads(items: WritebackItem[]) {
    const { pipelineId, statusId } = account;
    if (pipelineId === null || statusId === null) {
      // The stage was unset since: nothing to move.
      await setStage(items.map((i) => i.id), 'done');
      return;
    }
    const contactIds = [...new Set(items.map((i) => Number(i.kommo_contact_id)))];
    const leadsOf = await deps.api.contactLeads(account.creds, contactIds, signal);
    const leads = await deps.api.leadsByIds(account.creds, [...new Set([...leadsOf.values()].flat())], signal);
    const byId = new Map(leads.map((l) => [l.id, l]));
    // The contact's open lead: the most recently updated one not won or lost.
    const target = new Map<number, number>();
    for (const contactId of contactIds) {
      const open = (leadsOf.get(contactId) ?? []).map((id) => byId.get(id)).filter((l) => l !== undefined && isOpenLead(l));
      open.sort((a, b) => b!.updatedAt - a!.updatedAt || b!.id - a!.id);
      const lead = open[0];
      if (lead && !(lead.pipelineId === pipelineId && lead.statusId === statusId)) target.set(contactId, lead.id);
    }
    const moves = [...new Set(target.values())].map((id) => ({ id, pipelineId, statusId }));
    try {
      await deps.api.moveLeads(account.creds, moves, signal);
    } catch (err) {
      if (!(err instanceof KommoError && err.refused)) throw err;
      const refusedLeads = new Map(err.refused.map((r) => [moves[Number(r.requestId)]?.id, r.detail]));
      const why = (i: WritebackItem) => refusedLeads.get(target.get(Number(i.kommo_contact_id)) ?? -1);
      await failEach(items.filter((i) => why(i) !== undefined).map((i) => ({ id: i.id, reason: `Kommo rechazó el cambio de etapa: ${why(i)}` })));
      return;
    }
    await deps.afterAnswered?.(campaignId, 'lead');
    await setStage(items.map((i) => i.id), 'done');
  }
}
