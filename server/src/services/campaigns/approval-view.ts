import { sql } from 'drizzle-orm';
import type { ApprovalKind, CampaignApproval } from '@masivo/contract/campaigns';
import type { Db } from '../../db/client';
import { isoOf, rowsOf } from '../../db/sql';
import type { CampaignRow } from './campaign-view';

/** The latest request of a campaign as the detail view shows it (null: never asked). */
export async function approvalView(db: Db, row: CampaignRow): Promise<CampaignApproval | null> {
  const name = (alias: string) => sql.raw(`coalesce(nullif(trim(${alias}.first_name || ' ' || ${alias}.last_name), ''), ${alias}.email)`);
  const [a] = await rowsOf<{
    decision: CampaignApproval['status'] | null;
    kind: ApprovalKind;
    requested_by: number | null;
    requested_by_name: string | null;
    requested_at: string;
    expires_at: string;
    attempted: number;
    cost_usd: string | null;
    decided_by_name: string | null;
    decided_at: string | null;
    note: string | null;
  }>(
    db,
    sql`select a.decision, a.kind, a.requested_by, ${name('r')} as requested_by_name, ${isoOf(sql`a.requested_at`)} as requested_at,
               ${isoOf(sql`a.expires_at`)} as expires_at, a.attempted, a.cost_usd, ${name('d')} as decided_by_name,
               case when a.decided_at is null then null else ${isoOf(sql`a.decided_at`)} end as decided_at, a.note
        from campaign_approvals a
        left join users r on r.id = a.requested_by
        left join users d on d.id = a.decided_by
        where a.campaign_id = ${row.id} and a.user_id = ${row.userId}
        order by a.id desc limit 1`,
  );
  if (!a) return null;
  return {
    status: a.decision ?? 'pending',
    kind: a.kind,
    requested_by: a.requested_by === null ? null : Number(a.requested_by),
    requested_by_name: a.requested_by_name,
    requested_at: a.requested_at,
    expires_at: a.expires_at,
    attempted: Number(a.attempted),
    cost_usd: a.cost_usd === null ? null : Number(a.cost_usd),
    // Campaigns made before members existed belong to the founder (= the organisation's id).
    created_by: row.createdBy ?? row.userId,
    decided_by_name: a.decided_by_name,
    decided_at: a.decided_at,
    note: a.note,
  };
}
