import { and, eq, inArray, sql } from 'drizzle-orm';
import { campaigns } from '../../db/schema/index';
import {
  approveCampaignSchema,
  APPROVAL_TTL_HOURS,
  CAN_DECIDE,
  rejectCampaignSchema,
  type ApprovalKind,
  type ApproveCampaignInput,
  type Campaign,
  type RejectCampaignInput,
} from '@masivo/contract/campaigns';
import { can } from '@masivo/contract/organizations';
import type { AppContext } from '../../context';
import { onAutomationSwitched } from '../automations/automation-hooks';
import type { Db } from '../../db/client';
import { jsonParam, rowsOf, type Queryable } from '../../db/sql';
import { AppError, conflict } from '../../lib/errors';
import { parseWith } from '../../lib/parse-with';
import { recordActivity, SYSTEM, type ActivityActor } from '../activity/activity-log';
import { approvalSnapshot, canonical } from './approval-snapshot';
import { getCampaign, loadCampaignRow } from './campaign-queries';
import { activate, EDITED_MEANWHILE, leavePendingApproval, scheduleApproved, toPendingApproval } from './campaign-transitions';
import type { CampaignRow } from './campaign-view';
import { preflightForCampaign } from './preflight';

/**
 * Two-person approval (docs/architecture/campaign-engine.md, "Aprobación"). A start or a
 * schedule that needs it leaves the campaign in pending_approval with one request; another member
 * with 'campaigns.approve', neither its creator nor the requester, approves (the campaign then
 * proceeds as the start or schedule would have) or rejects it (back to draft). An edit voids the
 * request, and so does a request nobody decided within APPROVAL_TTL_HOURS (the scheduler's sweep).
 */

export const NOT_PENDING = 'La campaña no está pendiente de aprobación';
export const OWN_CAMPAIGN = 'No puedes aprobar ni rechazar una campaña que creaste';
export const OWN_REQUEST = 'No puedes aprobar ni rechazar una campaña cuya aprobación solicitaste';
export const CHANGED_SINCE_REQUEST =
  'La campaña cambió desde que se solicitó la aprobación: la solicitud quedó anulada y la campaña volvió a borrador';
const REJECTED_REASON = 'La aprobación fue rechazada';
const EXPIRED_REASON = 'La solicitud de aprobación venció sin respuesta';
const VOIDED_REASON = 'La campaña se editó mientras esperaba aprobación';

/** A member acting through a request (the activity log's actor, with a user). */
export type Approver = ActivityActor & { userId: number };

interface OpenRequest {
  id: number;
  kind: ApprovalKind;
  requested_by: number | null;
  snapshot: unknown;
}

const target = (row: Pick<CampaignRow, 'id' | 'name'>) => ({ type: 'campaign', id: row.id, name: row.name });

/** The campaign's creator: campaigns made before members existed belong to the founder (= the organisation's id). */
export const creatorOf = (row: CampaignRow) => row.createdBy ?? row.userId;

/**
 * Whether this start or schedule needs an approval: always for a member who may only ask
 * ('campaigns.start' without 'campaigns.send'); for the others when the organisation's setting
 * asks for it, and only before the first start (a resume sends to an audience already approved
 * or frozen). `preflight` is run only when the setting's threshold needs it.
 */
async function needsApproval(
  db: Db,
  actor: ActivityActor,
  row: CampaignRow,
  preflight: () => Promise<{ attempted: number; cost: number }>,
): Promise<boolean> {
  if (!can(actor.role, 'campaigns.send')) return true;
  if (row.audienceFrozenAt) return false;
  const [org] = await rowsOf<{ mode: string; min_recipients: number | null; min_cost: string | null }>(
    db,
    sql`select approval_mode as mode, approval_min_recipients as min_recipients, approval_min_cost_usd as min_cost
        from organizations where id = ${row.userId}`,
  );
  switch (org?.mode) {
    case 'always':
      return true;
    case 'recipients':
      return (await preflight()).attempted > Number(org.min_recipients ?? 0);
    case 'cost':
      return (await preflight()).cost > Number(org.min_cost ?? 0);
    default:
      return false;
  }
}

/**
 * The start or schedule gate. Returns true when the campaign went to pending_approval (and
 * nothing is sent), false when the caller proceeds as usual. `kind` 'start' = the operator's
 * «Iniciar»; 'schedule' = the campaign was just saved as scheduled.
 */
export async function gateApproval(ctx: AppContext, actor: ActivityActor, row: CampaignRow, kind: ApprovalKind): Promise<boolean> {
  const { db } = ctx;
  let measured: { attempted: number; cost: number } | null = null;
  // An automatic campaign has no audience to measure before its events arrive.
  if (row.audienceKind === 'automatic') measured = { attempted: 0, cost: 0 };
  const preflight = async () => {
    if (!measured) {
      const p = await preflightForCampaign(db, row.userId, row.id, { startNow: kind === 'start' });
      measured = { attempted: p.attempted, cost: p.cost.total };
    }
    return measured;
  };
  if (!(await needsApproval(db, actor, row, preflight))) return false;
  const { attempted, cost } = await preflight();
  const snapshot = await approvalSnapshot(db, row, kind);
  await db.transaction(async (tx) => {
    if (!(await toPendingApproval(tx, row))) throw conflict(EDITED_MEANWHILE);
    await tx.execute(sql`insert into campaign_approvals (user_id, campaign_id, kind, requested_by, snapshot, attempted, cost_usd, expires_at)
        values (${row.userId}, ${row.id}, ${kind}, ${actor.userId}, ${jsonParam(snapshot)}, ${attempted}, ${cost.toFixed(4)},
                now() + make_interval(hours => ${APPROVAL_TTL_HOURS}))`);
    await recordActivity(tx, actor, {
      action: 'campaign.approval_requested',
      target: target(row),
      detail: { kind, attempted, cost_usd: cost, scheduled_at: kind === 'schedule' ? row.scheduledAt?.toISOString() ?? null : null },
    });
  });
  ctx.signals.campaignChanged(row.id);
  return true;
}

async function openRequest(db: Queryable, row: CampaignRow): Promise<OpenRequest | undefined> {
  const [req] = await rowsOf<OpenRequest>(
    db,
    sql`select id, kind, requested_by, snapshot from campaign_approvals
        where campaign_id = ${row.id} and user_id = ${row.userId} and decision is null`,
  );
  return req;
}

/** The campaign in pending_approval with its open request, and a decider who is neither its creator nor the requester. */
async function decidable(db: Db, actor: Approver, id: number): Promise<{ row: CampaignRow; req: OpenRequest }> {
  const row = await loadCampaignRow(db, actor.orgId, id);
  if (!CAN_DECIDE.includes(row.status)) throw conflict(NOT_PENDING);
  const req = await openRequest(db, row);
  if (!req) throw conflict(NOT_PENDING);
  if (creatorOf(row) === actor.userId) throw new AppError(403, OWN_CAMPAIGN);
  if (req.requested_by === actor.userId) throw new AppError(403, OWN_REQUEST);
  return { row, req };
}

/** Closes the open request with `decision` (atomically: false when someone else decided first). */
async function decide(
  tx: Queryable,
  reqId: number,
  decision: 'approved' | 'rejected' | 'voided',
  by: number | null,
  note: string | null,
): Promise<boolean> {
  const rows = await rowsOf<{ id: number }>(
    tx,
    sql`update campaign_approvals set decision = ${decision}, decided_by = ${by}, decided_at = now(), note = ${note}
        where id = ${reqId} and decision is null returning id`,
  );
  return rows.length > 0;
}

const ALREADY_DECIDED = 'Otro miembro ya resolvió esta solicitud de aprobación';

/**
 * POST /api/campaigns/{id}/approve. The campaign must still be what was asked to be approved;
 * otherwise the request is voided (back to draft) and the answer is a 409. Approved, it proceeds
 * as its start (sending now) or schedule (scheduled at its time) would have.
 */
export async function approveCampaign(ctx: AppContext, actor: Approver, id: number, input: ApproveCampaignInput): Promise<Campaign> {
  const data = parseWith(approveCampaignSchema, input);
  const { db } = ctx;
  const { row, req } = await decidable(db, actor, id);
  const current = await approvalSnapshot(db, row, req.kind);
  if (canonical(current) !== canonical(req.snapshot)) {
    await voidRequest(db, actor, row, req, 'changed');
    ctx.signals.campaignChanged(id);
    throw conflict(CHANGED_SINCE_REQUEST);
  }
  await db.transaction(async (tx) => {
    if (!(await decide(tx, req.id, 'approved', actor.userId, data.note || null))) throw conflict(ALREADY_DECIDED);
    await recordActivity(tx, actor, { action: 'campaign.approve', target: target(row), detail: { kind: req.kind, note: data.note || null } });
  });
  try {
    if (!(req.kind === 'schedule' && (await scheduleApproved(db, row.userId, id)))) await activate(db, row, CAN_DECIDE);
  } catch (err) {
    // The campaign cannot start any more (number switched off, template paused…): the approval
    // is spent and the campaign goes back to draft with the reason in the answer.
    if (err instanceof AppError) {
      await db.transaction(async (tx) => {
        await tx.execute(sql`update campaign_approvals set used_at = now() where id = ${req.id}`);
        await leavePendingApproval(tx, row.userId, id, err.message);
      });
      ctx.signals.campaignChanged(id);
    }
    throw err;
  }
  ctx.signals.campaignChanged(id);
  // An approved automatic campaign is switched on: the inbound side subscribes to its lead events.
  if (row.audienceKind === 'automatic') await onAutomationSwitched(ctx, row.userId, row.kommoAccountId);
  return getCampaign(db, row.userId, id);
}

/** POST /api/campaigns/{id}/reject: the reason is required; the campaign returns to draft. */
export async function rejectCampaign(ctx: AppContext, actor: Approver, id: number, input: RejectCampaignInput): Promise<Campaign> {
  const data = parseWith(rejectCampaignSchema, input);
  const { db } = ctx;
  const { row, req } = await decidable(db, actor, id);
  await db.transaction(async (tx) => {
    if (!(await decide(tx, req.id, 'rejected', actor.userId, data.reason))) throw conflict(ALREADY_DECIDED);
    await leavePendingApproval(tx, row.userId, id, `${REJECTED_REASON}: ${data.reason}`);
    await recordActivity(tx, actor, { action: 'campaign.reject', target: target(row), reason: data.reason, detail: { kind: req.kind } });
  });
  ctx.signals.campaignChanged(id);
  return getCampaign(db, row.userId, id);
}

async function voidRequest(db: Db, actor: ActivityActor, row: CampaignRow, req: { id: number; kind: string }, why: 'edited' | 'changed') {
  await db.transaction(async (tx) => {
    if (!(await decide(tx, req.id, 'voided', actor.userId, why === 'edited' ? VOIDED_REASON : CHANGED_SINCE_REQUEST))) return;
    await leavePendingApproval(tx, row.userId, row.id, VOIDED_REASON);
    await recordActivity(tx, actor, { action: 'campaign.approval_voided', target: target(row), detail: { kind: req.kind, why } });
  });
}

/**
 * An edit (PUT, a change of the template's mapping) voids what was asked or approved: the open
 * request (the campaign leaves pending_approval: back to draft, unless the edit already moved it)
 * and an approval not spent yet (a campaign saved scheduled asks again through the gate).
 * `before` is the campaign as it was read before the edit.
 */
export async function voidOnEdit(db: Db, actor: ActivityActor, before: CampaignRow): Promise<void> {
  const req = before.status === 'pending_approval' ? await openRequest(db, before) : undefined;
  if (req) await voidRequest(db, actor, before, req, 'edited');
  const spent = await rowsOf<{ id: number }>(
    db,
    sql`update campaign_approvals set used_at = now()
        where campaign_id = ${before.id} and user_id = ${before.userId} and decision = 'approved' and used_at is null returning id`,
  );
  if (spent.length) {
    await recordActivity(db, actor, { action: 'campaign.approval_voided', target: target(before), detail: { why: 'edited_after_approval' } });
  }
}

/** A template's mapping changed: every campaign of the organisation using it that waits for (or holds) an approval loses it. */
export async function voidApprovalsForTemplate(ctx: AppContext, actor: ActivityActor, templateId: number): Promise<void> {
  const { db } = ctx;
  const rows = await db
    .select()
    .from(campaigns)
    .where(and(eq(campaigns.userId, actor.orgId), eq(campaigns.templateId, templateId), inArray(campaigns.status, ['pending_approval', 'scheduled'])));
  for (const row of rows) {
    await voidOnEdit(db, actor, row);
    // A scheduled campaign keeps its schedule and asks again (its approval no longer covers it).
    if (row.status === 'scheduled') await gateAfterEdit(ctx, actor, row);
  }
}

/**
 * A campaign saved as scheduled passes the gate again: an Editor's schedule always asks, the
 * others when the setting says so. A campaign that had an approval spent by the edit asks too
 * when the setting or the role asks (its approval covered what it was before).
 */
export async function gateAfterEdit(ctx: AppContext, actor: ActivityActor, row: CampaignRow): Promise<boolean> {
  if (row.status !== 'scheduled') return false;
  return gateApproval(ctx, actor, row, 'schedule');
}

/**
 * The expiry sweep (scheduler tick): requests nobody decided within APPROVAL_TTL_HOURS expire and
 * their campaigns return to draft. Safe in every worker at once: each request is closed by one
 * conditional update, and only the worker that closed it moves the campaign.
 */
export async function expireApprovals(db: Db): Promise<number[]> {
  const due = await rowsOf<{ id: number; campaign_id: number; user_id: number }>(
    db,
    sql`select id, campaign_id, user_id from campaign_approvals where decision is null and expires_at <= now() order by expires_at limit 100`,
  );
  const moved: number[] = [];
  for (const req of due) {
    await db.transaction(async (tx) => {
      const closed = await rowsOf<{ name: string }>(
        tx,
        sql`update campaign_approvals a set decision = 'expired', decided_at = now()
            from campaigns c where a.id = ${req.id} and a.decision is null and c.id = a.campaign_id returning c.name`,
      );
      if (!closed.length) return;
      if (await leavePendingApproval(tx, req.user_id, req.campaign_id, EXPIRED_REASON)) moved.push(Number(req.campaign_id));
      await recordActivity(tx, SYSTEM(req.user_id), {
        action: 'campaign.approval_expired',
        target: { type: 'campaign', id: req.campaign_id, name: closed[0]!.name },
        detail: { hours: APPROVAL_TTL_HOURS },
      });
    });
  }
  return moved;
}
