import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { preparedRows, rowsOf } from '../../db/sql';
import type { LeadFields } from '@masivo/contract/automation-trigger';
import type { ContactLike } from '../../services/variables/render';
import { pickWithinBudget, recordReach, type ClaimReach } from './portfolio-reach';
import { withinSendingHours } from './sending-hours-claim';
import { portfolioKeyOf, UNLIMITED } from '../../services/whatsapp-accounts/messaging-limit';
import type { SpanContext } from '../../lib/tracing';
import { claimableArmSql } from '../../services/campaigns/split-test';

export interface ClaimedRecipient {
  id: number;
  campaignId: number;
  phone: string;
  phoneKey: string;
  /** Requests made for this recipient, the one about to happen included. */
  attempts: number;
  contact: ContactLike;
  /** An explicit recipient's own template parameters (0039); null for every other recipient. */
  params?: Record<string, string> | null;
  /** A split test's arm (0 = A): the sender renders the row with that variant's template. */
  variant?: number | null;
  /** With tracing on, the span of the claim that took it (the send span links to it). */
  claimSpan?: SpanContext;
}

interface RawClaim {
  id: number | string;
  phone: string;
  phone_key: string;
  attempts: number;
  name: string | null;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  custom_fields: Record<string, string> | string | null;
  params: Record<string, string> | string | null;
  lead: LeadFields | string | null;
  variant?: number | string | null;
}

/**
 * Commits the intent to send BEFORE any request: the next due pending rows of one campaign
 * become `sending`, owned by this process, attempts + 1. Only while the campaign is still
 * sending (a pause committed before this statement is honoured). SKIP LOCKED lets a webhook
 * or another worker hold a row without stalling the claim. The contact's current fields come
 * back for rendering; a contact deleted since the freeze renders with the mapping defaults.
 * A claim that took rows also clears the campaign's wait for its sending hours, in the same
 * statement (sending-hours-claim.ts sets it when nothing due is inside its window).
 */
export async function claimRecipients(db: Db, campaignId: number, owner: string, limit: number, reach?: ClaimReach, lane?: number | null): Promise<ClaimedRecipient[]> {
  const rows = await preparedRows<RawClaim>(
    db,
    sql`with ${candidatesSql(campaignId, limit, laneOnly(lane))},
        picked as (${pickWithinBudget(reach)}),
        ${claimedSql(campaignId, owner)},
        -- Something was due within its sending hours: the campaign waits for no window.
        hours_open as (
          update campaigns set hours_wait_until = null
          where id = ${campaignId} and hours_wait_until is not null and exists (select 1 from claimed)
        )${recordReach(reach)}
        select cl.id, cl.phone, cl.phone_key, cl.attempts, cl.params, cl.lead, cl.variant, c.name, c.first_name, c.last_name, c.email, c.custom_fields
        from claimed cl left join contacts c on c.id = cl.contact_id
        order by cl.id`,
  );
  return rows.map((r) => claimedOf(r, campaignId));
}

/**
 * The claim of a number whose portfolio has no messaging limit to enforce (unlimited, or not
 * known yet), in ONE statement: the limit is read in it, the claimed recipients are stamped in
 * `portfolio_reach` and the campaign's waits (sending hours, messaging limit) are cleared, as
 * claimWithinBudget's unlimited path does in three. Null when the limit turned out to be set:
 * nothing was claimed, and the caller takes the budgeted path (portfolio-budget.ts).
 */
export async function claimUnlimited(db: Db, campaignId: number, owner: string, limit: number, lane?: number | null): Promise<ClaimedRecipient[] | null> {
  const rows = await preparedRows<RawClaim & { unlimited: boolean }>(
    db,
    sql`with b as (
          select c.user_id, ${portfolioKeyOf('a')} as portfolio_id, (a.daily_limit is null or a.daily_limit = ${UNLIMITED}) as unlimited
          from campaigns c join whatsapp_accounts a on a.id = c.whatsapp_account_id where c.id = ${campaignId}
        ),
        ${candidatesSql(campaignId, limit, sql`and exists (select 1 from b where b.unlimited) ${laneOnly(lane)}`)},
        picked as (select id from candidates),
        ${claimedSql(campaignId, owner)},
        -- Something was due within its sending hours: no window to wait for; no limit: no place either.
        waits_cleared as (
          update campaigns set limit_wait_until = null,
            hours_wait_until = case when exists (select 1 from claimed) then null else hours_wait_until end
          where id = ${campaignId} and exists (select 1 from b where b.unlimited)
            and (limit_wait_until is not null or (hours_wait_until is not null and exists (select 1 from claimed)))
        ),
        reached as (
          insert into portfolio_reach (user_id, portfolio_id, phone_key, reached_at)
          select b.user_id, b.portfolio_id, cl.phone_key, clock_timestamp() from claimed cl cross join b where cl.phone_key is not null
          on conflict (user_id, portfolio_id, phone_key) do update set reached_at = excluded.reached_at
        )
        select b.unlimited, cl.id, cl.phone, cl.phone_key, cl.attempts, cl.params, cl.lead, cl.variant, c.name, c.first_name, c.last_name, c.email, c.custom_fields
        from b left join (claimed cl left join contacts c on c.id = cl.contact_id) on true
        order by cl.id`,
  );
  // No row: the campaign is gone, nothing to claim.
  if (rows.length && !rows[0].unlimited) return null;
  return rows.filter((r) => r.id !== null).map((r) => claimedOf(r, campaignId));
}

/** Several numbers: a number claims only the rows assigned to it (campaign_recipients_lane_idx). */
const laneOnly = (lane: number | null | undefined) => (lane ? sql`and r.whatsapp_account_id = ${lane}` : sql``);

/** The next due pending rows of the campaign within its sending hours, locked (`extra`: one more condition). */
const candidatesSql = (campaignId: number, limit: number, extra = sql``) => sql`candidates as (
          select r.id, r.phone_key, r.next_attempt_at from campaign_recipients r
          where r.campaign_id = ${campaignId} and r.status = 'pending' and r.next_attempt_at <= now() and ${withinSendingHours(campaignId)}
            and ${claimableArmSql(campaignId)} ${extra}
          order by r.next_attempt_at, r.id
          limit ${limit}
          for update skip locked
        )`;

/** The `picked` rows become `sending`, owned by `owner`, while the campaign is still sending. */
const claimedSql = (campaignId: number, owner: string) => sql`claimed as (
          update campaign_recipients r
          set status = 'sending', attempts = r.attempts + 1, claimed_at = now(), claim_owner = ${owner}, dispatched_at = null
          from picked p
          where r.id = p.id and exists (select 1 from campaigns c where c.id = ${campaignId} and c.status = 'sending')
          returning r.id, r.contact_id, r.phone, r.phone_key, r.attempts, r.params, r.lead, r.variant
        )`;

function claimedOf(r: RawClaim, campaignId: number): ClaimedRecipient {
  return {
    id: Number(r.id),
    campaignId,
    phone: r.phone,
    phoneKey: r.phone_key,
    attempts: Number(r.attempts),
    contact: {
      name: r.name ?? '',
      first_name: r.first_name ?? '',
      last_name: r.last_name ?? '',
      phone: r.phone,
      email: r.email,
      custom_fields: typeof r.custom_fields === 'string' ? JSON.parse(r.custom_fields) : (r.custom_fields ?? {}),
      // An automatic campaign's lead (0043), for the `lead.*` variables; null for every other recipient.
      lead: typeof r.lead === 'string' ? JSON.parse(r.lead) : r.lead,
    },
    params: typeof r.params === 'string' ? JSON.parse(r.params) : r.params,
    variant: r.variant === null || r.variant === undefined ? null : Number(r.variant),
  };
}

/** When the earliest pending row of the campaign is due (null: none left). */
export async function nextDueAt(db: Db, campaignId: number, lane?: number | null): Promise<number | null> {
  const [row] = await rowsOf<{ wait_ms: number | string | null }>(
    db,
    sql`select extract(epoch from (min(next_attempt_at) - now())) * 1000 as wait_ms
        from campaign_recipients r
        where r.campaign_id = ${campaignId} and r.status = 'pending' and r.next_attempt_at < 'infinity' and ${claimableArmSql(campaignId)} ${laneOnly(lane)}`,
  );
  return row?.wait_ms === null || row?.wait_ms === undefined ? null : Number(row.wait_ms);
}
