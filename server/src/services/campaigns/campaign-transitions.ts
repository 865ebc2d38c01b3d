import { and, eq, inArray, sql, type SQL } from 'drizzle-orm';
import {
  APPROVAL_AUDIENCE_TOLERANCE,
  APPROVAL_TTL_HOURS,
  CAMPAIGN_STATUS_LABELS,
  CAN_CANCEL,
  CAN_DELETE,
  CAN_PAUSE,
  type CampaignStatus,
} from '@masivo/contract/campaigns';
import type { Db } from '../../db/client';
import { campaigns, whatsappAccounts } from '../../db/schema/index';
import { rowsOf, type Queryable } from '../../db/sql';
import { withSystemEntries } from '../activity/activity-log';
import { conflict, type AppError } from '../../lib/errors';
import { assertTemplateUsable } from '../variables/template-readiness';
import { loadCampaignRow } from './campaign-queries';
import type { CampaignRow } from './campaign-view';
import { freezeAudience } from './freeze-audience';
import { recordActivity, SYSTEM } from '../activity/activity-log';

/**
 * Every change of a campaign's status goes through one of the functions below, as every
 * recipient change goes through recipient-transitions.ts. Each statement names in its WHERE
 * the statuses it may move from (the contract's CAN_* lists), so a change that raced with
 * another (an operator's pause, a scheduler in another worker) matches no row and changes
 * nothing instead of overwriting it. Refusals are one Spanish 409 built by `refuse`.
 *
 * Status map: draft ⇄ scheduled (edit) → sending (activate) → completed (completeFinished,
 * or activate with nobody left) → sending again (reopenAfterRetry); sending → paused
 * (pauseByOperator, pauseWithReason, pauseOrphaned); scheduled → paused (pauseFailedStart);
 * paused → sending (activate, or resumeAfterTemplate for campaigns the engine paused because
 * Meta paused their template).
 *
 * Two-person approval: draft, scheduled or paused → pending_approval (toPendingApproval, when a
 * start or schedule needs another member's approval); pending_approval → sending (activate, the
 * approval of a start) or → scheduled (scheduleApproved, the approval of a schedule) or → draft
 * (leavePendingApproval: rejected, expired or edited; → paused instead when the audience is already
 * frozen). activate itself sends a campaign back to pending_approval when the audience it just
 * froze is more than APPROVAL_AUDIENCE_TOLERANCE above what was approved.
 *
 * Every pause records its origin (`pause_origin`): 'operator' (only the operator resumes it),
 * 'template' (Meta paused or disabled the template: resumes by itself when Meta unpauses or
 * reinstates it) or 'engine' (any other systemic reason: the operator resumes it).
 *
 * The engine's transitions write their activity-log entries ("sistema") in the same statement
 * (withSystemEntries); an operator's are recorded by the route, which knows who asked.
 */

export type PauseOrigin = 'operator' | 'template' | 'engine';

export type CampaignAction = 'start' | 'pause' | 'edit' | 'retry' | 'delete' | 'cancel';

const REFUSAL: Record<CampaignAction, string> = {
  start: 'No se puede iniciar',
  pause: 'No se puede pausar',
  edit: 'No se puede editar',
  retry: 'No se pueden reintentar envíos de',
  delete: 'No se puede eliminar',
  cancel: 'No se puede cancelar',
};

/** The 409 for an action the campaign's status does not allow, e.g. "No se puede pausar una campaña en estado Borrador". */
export function refuse(action: CampaignAction, status: string): AppError {
  const label = CAMPAIGN_STATUS_LABELS[status as CampaignStatus] ?? status;
  return conflict(`${REFUSAL[action]} una campaña en estado ${label}`);
}

/** The pause reason of a sending campaign whose number was deleted: it waits for the owner to pick another. */
export const ACCOUNT_GONE = 'La cuenta de WhatsApp de la campaña ya no existe';
export const EDITED_MEANWHILE = 'La campaña cambió de estado mientras se editaba; vuelve a intentarlo';

const statusIn = (statuses: readonly CampaignStatus[]): SQL =>
  sql`status in (${sql.join(statuses.map((s) => sql`${s}`), sql`, `)})`;

const ids = (rows: Array<{ id: number }>) => rows.map((r) => Number(r.id));

/** What a start needs (status, number, template, Kommo account): the 409 when something is missing. */
export async function assertCanActivate(db: Db, row: CampaignRow, allowedFrom: readonly CampaignStatus[]): Promise<void> {
  if (!allowedFrom.includes(row.status)) throw refuse('start', row.status);
  if (!row.whatsappAccountId) throw conflict('La campaña no tiene una cuenta de WhatsApp');
  if (!row.templateId) throw conflict('La campaña no tiene una plantilla');
  const [account] = await db
    .select({ isActive: whatsappAccounts.isActive })
    .from(whatsappAccounts)
    .where(eq(whatsappAccounts.id, row.whatsappAccountId))
    .limit(1);
  if (!account) throw conflict('La campaña no tiene una cuenta de WhatsApp');
  if (!account.isActive) throw conflict('La cuenta de WhatsApp está desactivada');
  const explicit = row.audienceKind === 'explicit';
  await assertTemplateUsable(db, row.userId, row.templateId, row.whatsappAccountId, { partialMappings: explicit });
  // An explicit campaign has no Kommo account: its audience is its staged recipients.
  if (!row.audienceFrozenAt && !row.kommoAccountId && !explicit) throw conflict('La campaña no tiene una cuenta Kommo');
}

/**
 * → sending (or straight to completed when nobody is left to send to). Checks that the
 * campaign can send now, then, in one transaction holding the campaign row, freezes the
 * audience if this is the first start. `allowedFrom` is CAN_START for the operator and
 * ['scheduled'] for the scheduler, CAN_DECIDE for an approval. 'pending_approval' when the
 * audience just frozen outgrew its approval (see spendApproval): nothing is sent.
 */
export async function activate(db: Db, row: CampaignRow, allowedFrom: readonly CampaignStatus[]): Promise<'sending' | 'pending_approval'> {
  await assertCanActivate(db, row, allowedFrom);
  return db.transaction(async (tx) => {
    // The audience is frozen from this locked version: an edit committed since `row` was
    // read (filters, Kommo account) is what the operator saved last.
    const [locked] = await tx.select().from(campaigns).where(eq(campaigns.id, row.id)).for('update');
    if (!locked) throw conflict('La campaña ya no existe');
    if (!allowedFrom.includes(locked.status)) throw refuse('start', locked.status);
    let frozen: number | null = null;
    if (!locked.audienceFrozenAt) {
      if (!locked.kommoAccountId && locked.audienceKind !== 'explicit') throw conflict('La campaña no tiene una cuenta Kommo');
      // An automatic campaign has nothing to freeze: its recipients arrive as trigger events.
      // The mark still says "switched on once", so a resume needs no new approval.
      if (locked.audienceKind === 'automatic') await tx.execute(sql`update campaigns set audience_frozen_at = now() where id = ${locked.id}`);
      else frozen = (await freezeAudience(tx, { id: locked.id, userId: locked.userId, kommoAccountId: locked.kommoAccountId, filters: locked.filters })).pending;
    }
    // An approval is spent by the start that sends under it. Checked here, right after the
    // freeze and before anything is sent, so the per-message path never looks at approvals.
    if ((await spendApproval(tx, locked, frozen)) === 'regrown') return 'pending_approval' as const;
    // An automatic campaign stays switched on with nobody pending: events bring its recipients.
    await tx.execute(sql`update campaigns set
        status = case when pending_count = 0 and audience_kind <> 'automatic' then 'completed' else 'sending' end,
        completed_at = case when pending_count = 0 and audience_kind <> 'automatic' then now() end,
        started_at = coalesce(started_at, now()),
        pause_reason = null,
        pause_origin = null,
        updated_at = now()
      where id = ${row.id}`);
    return 'sending' as const;
  });
}

/**
 * The campaign's approval not spent yet (if any) is marked spent. When the audience just frozen
 * is more than the tolerance above the `attempted` that was approved, the campaign goes back to
 * pending_approval with a new request for the grown audience (same requester and snapshot; the
 * approved cost scaled to it, the estimate being per message), and the start sends nothing.
 */
async function spendApproval(tx: Queryable, row: CampaignRow, frozen: number | null): Promise<'ok' | 'regrown'> {
  const [approval] = await rowsOf<{ id: number; kind: string; requested_by: number | null; snapshot: unknown; attempted: number; cost_usd: string | null }>(
    tx,
    sql`update campaign_approvals set used_at = now()
        where id = (select id from campaign_approvals
                    where campaign_id = ${row.id} and user_id = ${row.userId} and decision = 'approved' and used_at is null
                    order by id desc limit 1)
        returning id, kind, requested_by, snapshot, attempted, cost_usd`,
  );
  if (!approval || frozen === null || frozen <= Number(approval.attempted) * (1 + APPROVAL_AUDIENCE_TOLERANCE)) return 'ok';
  const attempted = Number(approval.attempted);
  const cost = approval.cost_usd === null ? null : attempted > 0 ? (Number(approval.cost_usd) * frozen) / attempted : null;
  await tx.execute(sql`update campaigns set status = 'pending_approval', updated_at = now() where id = ${row.id}`);
  await tx.execute(sql`insert into campaign_approvals (user_id, campaign_id, kind, requested_by, snapshot, attempted, cost_usd, expires_at)
      values (${row.userId}, ${row.id}, 'start', ${approval.requested_by}, ${JSON.stringify(approval.snapshot)}::jsonb, ${frozen},
              ${cost === null ? null : cost.toFixed(4)}, now() + make_interval(hours => ${APPROVAL_TTL_HOURS}))`);
  await recordActivity(tx, SYSTEM(row.userId), {
    action: 'campaign.approval_requested',
    target: { type: 'campaign', id: row.id, name: row.name },
    detail: { reason: 'audience_grew', approved_attempted: attempted, attempted: frozen },
  });
  return 'regrown';
}

/**
 * → pending_approval from the status the caller read (draft, scheduled or paused), with the
 * request row in the same transaction. False when the campaign changed status meanwhile.
 */
export async function toPendingApproval(tx: Queryable, row: CampaignRow): Promise<boolean> {
  const moved = await rowsOf<{ id: number }>(
    tx,
    sql`update campaigns set status = 'pending_approval', updated_at = now()
        where id = ${row.id} and user_id = ${row.userId} and status = ${row.status} and status in ('draft', 'scheduled', 'paused')
        returning id`,
  );
  return moved.length > 0;
}

/**
 * pending_approval → draft (rejected, expired, voided by an edit). A campaign whose audience is
 * already frozen (a resume, or an audience that grew at the freeze) cannot be a draft again:
 * it goes back to paused, with the reason, and waits for the operator.
 */
export async function leavePendingApproval(tx: Queryable, orgId: number, id: number, reason: string): Promise<boolean> {
  const rows = await rowsOf<{ id: number }>(
    tx,
    sql`update campaigns set
          status = case when audience_frozen_at is null then 'draft' else 'paused' end,
          pause_reason = case when audience_frozen_at is null then null else ${reason} end,
          pause_origin = case when audience_frozen_at is null then null else 'operator' end,
          updated_at = now()
        where id = ${id} and user_id = ${orgId} and status = 'pending_approval'
        returning id`,
  );
  return rows.length > 0;
}

/** An approved schedule: pending_approval → scheduled (the scheduler starts it at its time, or at once when that passed). */
export async function scheduleApproved(tx: Queryable, orgId: number, id: number): Promise<boolean> {
  const rows = await rowsOf<{ id: number }>(
    tx,
    sql`update campaigns set status = 'scheduled', updated_at = now()
        where id = ${id} and user_id = ${orgId} and status = 'pending_approval' and scheduled_at is not null
        returning id`,
  );
  return rows.length > 0;
}

/**
 * Operator's pause (CAN_PAUSE → paused, no reason); the campaign's new row, or the 409. The
 * member who paused is named for the transaction, so the `campaign.paused` webhook the status
 * trigger writes (migration 0041) says who it was.
 */
export async function pauseByOperator(db: Db, userId: number, id: number, actorUserId: number | null = null): Promise<CampaignRow> {
  const row = await db.transaction(async (tx) => {
    if (actorUserId) await tx.execute(sql`select set_config('masivo.actor_user_id', ${String(actorUserId)}, true)`);
    const [updated] = await tx
      .update(campaigns)
      .set({ status: 'paused', pauseReason: null, pauseOrigin: 'operator', updatedAt: new Date() })
      .where(and(eq(campaigns.id, id), eq(campaigns.userId, userId), inArray(campaigns.status, [...CAN_PAUSE])))
      .returning();
    return updated;
  });
  if (row) return row;
  throw refuse('pause', (await loadCampaignRow(db, userId, id)).status);
}

/**
 * Cancel (CAN_CANCEL → cancelled): nothing more is sent; rows already on the wire finish, the
 * pending ones stay unsent. A request waiting for approval is closed as voided in the same
 * transaction. The campaign's new row, or the 409.
 */
export async function cancelCampaignRow(db: Db, orgId: number, id: number): Promise<CampaignRow> {
  const row = await db.transaction(async (tx) => {
    const [updated] = await tx
      .update(campaigns)
      .set({ status: 'cancelled', updatedAt: new Date() })
      .where(and(eq(campaigns.id, id), eq(campaigns.userId, orgId), inArray(campaigns.status, [...CAN_CANCEL])))
      .returning();
    if (updated) {
      await tx.execute(sql`update campaign_approvals set decision = 'voided', decided_at = now()
                           where campaign_id = ${id} and decision is null`);
    }
    return updated;
  });
  if (row) return row;
  throw refuse('cancel', (await loadCampaignRow(db, orgId, id)).status);
}

/**
 * The engine pauses sending campaigns by itself when Meta refuses for a systemic reason
 * (or the number is switched off, rated RED, its token unreadable). Returns the paused ids.
 */
export async function pauseWithReason(
  db: Queryable,
  target: { campaignIds: number[] } | { whatsappAccountId: number },
  reason: string,
  origin: Exclude<PauseOrigin, 'operator'> = 'engine',
): Promise<number[]> {
  const which =
    'campaignIds' in target
      ? sql`id in (select (jsonb_array_elements_text(${JSON.stringify(target.campaignIds)}::jsonb))::int)`
      : // A several-number campaign does not pause for one number: that number's lane stops (sender-campaigns.ts).
        sql`whatsapp_account_id = ${target.whatsappAccountId} and not exists (select 1 from campaign_numbers n where n.campaign_id = campaigns.id)`;
  return ids(
    await rowsOf<{ id: number }>(
      db,
      withSystemEntries(
        sql`update campaigns set status = 'paused', pause_reason = ${reason}, pause_origin = ${origin}, updated_at = now()
            where ${statusIn(CAN_PAUSE)} and ${which} returning id, user_id, name, status, 'sending' as old_status`,
        { action: origin === 'template' ? 'campaign.paused_by_meta' : 'campaign.paused_by_engine', reason },
      ),
    ),
  );
}

/**
 * Meta paused or disabled these templates: every campaign sending with one of them pauses at
 * once, with the reason and origin 'template' (so `resumeAfterTemplate` may bring it back).
 */
export async function pauseForTemplates(db: Queryable, templateIds: number[], reason: string): Promise<number[]> {
  if (!templateIds.length) return [];
  return ids(
    await rowsOf<{ id: number }>(
      db,
      // A campaign already paused for its template (a send's 132015 came before Meta's
      // webhook) takes the webhook's more precise reason; the operator's pauses stay as they are.
      // The status before comes from a locked read of the same rows, so a campaign that was
      // already paused (only its reason changes) gets no second entry.
      withSystemEntries(
        sql`update campaigns c set status = 'paused', pause_reason = ${reason}, pause_origin = 'template', updated_at = now()
            from (select id, status as old_status from campaigns
                  where (${statusIn(CAN_PAUSE)} or (status = 'paused' and pause_origin = 'template'))
                    and template_id in (select (jsonb_array_elements_text(${JSON.stringify(templateIds)}::jsonb))::int)
                  for update) o
            where c.id = o.id
            returning c.id, c.user_id, c.name, c.status, o.old_status`,
        { action: 'campaign.paused_by_meta', reason },
      ),
    ),
  );
}

/**
 * Meta unpaused or reinstated these templates: the campaigns the ENGINE paused for their
 * template send again (or complete, when nobody is left). A campaign the operator paused, or
 * one paused for another reason since, is left as it is.
 */
export async function resumeAfterTemplate(db: Queryable, templateIds: number[]): Promise<number[]> {
  if (!templateIds.length) return [];
  return ids(
    await rowsOf<{ id: number }>(
      db,
      withSystemEntries(
        sql`update campaigns set
              status = case when pending_count = 0 and audience_kind <> 'automatic' then 'completed' else 'sending' end,
              completed_at = case when pending_count = 0 and audience_kind <> 'automatic' then now() end,
              pause_reason = null, pause_origin = null, updated_at = now()
            where status = 'paused' and pause_origin = 'template' and audience_frozen_at is not null
              and template_id in (select (jsonb_array_elements_text(${JSON.stringify(templateIds)}::jsonb))::int)
            returning id, user_id, name, status, 'paused' as old_status`,
        { action: 'campaign.resumed_by_meta' },
      ),
    ),
  );
}

/**
 * Meta banned or restricted a WABA (account_update webhook): every one-number sending campaign of
 * every verified number of that WABA pauses with the reason. Returns the paused ids.
 */
export async function pauseWabaCampaigns(db: Queryable, wabaId: string, reason: string): Promise<number[]> {
  return ids(
    await rowsOf<{ id: number }>(
      db,
      withSystemEntries(
        // A several-number campaign is not paused: the WABA's numbers are restricted
        // (number-restriction.ts), so their lanes stop and the campaign goes on with its others.
        sql`update campaigns set status = 'paused', pause_reason = ${reason}, pause_origin = 'engine', updated_at = now()
            where ${statusIn(CAN_PAUSE)} and whatsapp_account_id in (
              select id from whatsapp_accounts where business_account_id = ${wabaId} and owner_verified_at is not null)
              and not exists (select 1 from campaign_numbers n where n.campaign_id = campaigns.id)
            returning id, user_id, name, status, 'sending' as old_status`,
        { action: 'campaign.paused_by_meta', reason },
      ),
    ),
  );
}

/** A scheduled start that cannot happen: paused with the reason so the owner sees it. False if another worker moved it first. */
export async function pauseFailedStart(db: Queryable, id: number, reason: string): Promise<boolean> {
  const rows = await rowsOf<{ id: number }>(
    db,
    withSystemEntries(
      sql`update campaigns set status = 'paused', pause_reason = ${reason}, pause_origin = 'engine', updated_at = now()
          where id = ${id} and status = 'scheduled' returning id, user_id, name, status, 'scheduled' as old_status`,
      { action: 'campaign.start_failed', reason },
    ),
  );
  return rows.length > 0;
}

/** Sending campaigns with nothing left to settle → completed; never an automatic one (it waits for events while on). */
export async function completeFinished(db: Queryable): Promise<number[]> {
  return ids(
    await rowsOf<{ id: number }>(
      db,
      withSystemEntries(
        sql`update campaigns set status = 'completed', completed_at = now(), updated_at = now()
            where status = 'sending' and pending_count = 0 and audience_frozen_at is not null and audience_kind <> 'automatic'
            returning id, user_id, name, status, 'sending' as old_status`,
        { action: 'campaign.completed' },
      ),
    ),
  );
}

/** Sending campaigns whose WhatsApp account was deleted → paused with ACCOUNT_GONE. */
export async function pauseOrphaned(db: Queryable): Promise<number[]> {
  return ids(
    await rowsOf<{ id: number }>(
      db,
      withSystemEntries(
        sql`update campaigns set status = 'paused', pause_reason = ${ACCOUNT_GONE}, pause_origin = 'engine', updated_at = now()
            where status = 'sending' and whatsapp_account_id is null
            returning id, user_id, name, status, 'sending' as old_status`,
        { action: 'campaign.paused_by_engine', reason: ACCOUNT_GONE },
      ),
    ),
  );
}

/**
 * Recipients were requeued: a completed campaign sends again (a paused one waits for 'Iniciar').
 * `byEngine`: the scheduler requeued deferred recipients, so the log gets a "sistema" entry; an
 * operator's retry is recorded by its route.
 */
export async function reopenAfterRetry(tx: Queryable, id: number, byEngine = false): Promise<void> {
  const update = sql`update campaigns set status = 'sending', completed_at = null, updated_at = now()
    where id = ${id} and status = 'completed'`;
  if (!byEngine) await tx.execute(update);
  else await rowsOf(tx, withSystemEntries(sql`${update} returning id, user_id, name, status, 'completed' as old_status`, { action: 'campaign.reopened' }));
}

/**
 * Saves an edit (which may move draft ⇄ scheduled) only if nobody started or paused the
 * campaign since `row` was read (whose status the caller checked against CAN_EDIT).
 */
export async function saveEdit(db: Db, row: CampaignRow, changes: Partial<typeof campaigns.$inferInsert>): Promise<CampaignRow> {
  const [updated] = await db
    .update(campaigns)
    .set(changes)
    .where(and(eq(campaigns.id, row.id), eq(campaigns.userId, row.userId), eq(campaigns.status, row.status)))
    .returning();
  if (!updated) throw conflict(EDITED_MEANWHILE);
  return updated;
}

/** The delete guard: only from CAN_DELETE; its recipients go with it (foreign key cascade). */
export async function deleteIfAllowed(db: Db, userId: number, id: number): Promise<void> {
  const deleted = await db
    .delete(campaigns)
    .where(and(eq(campaigns.id, id), eq(campaigns.userId, userId), inArray(campaigns.status, [...CAN_DELETE])))
    .returning({ id: campaigns.id });
  if (!deleted.length) throw refuse('delete', (await loadCampaignRow(db, userId, id)).status);
}
