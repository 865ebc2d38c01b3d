import { sql } from 'drizzle-orm';
import type { OpsState } from '../lib/metrics';
import type { Db } from './client';
import { changeMark, ROLLUP_JOB } from './rollup-mark';
import { rowsOf } from './sql';

/**
 * The figures /metrics reads from the database. Each query rides a partial index
 * (campaigns_sending_idx + campaign_recipients_claim_idx, webhook_events_queue_idx,
 * kommo_accounts_syncing_idx), or reads one row per campaign (the rollups' lag, as the job does at
 * each pass), and the statement timeout bounds it on PostgreSQL.
 */
export async function readOpsState(db: Db): Promise<OpsState> {
  const queue = await rowsOf<{ id: number; n: number | string }>(
    db,
    sql`select c.whatsapp_account_id as id, count(*) as n
        from campaigns c join campaign_recipients r on r.campaign_id = c.id and r.status = 'pending'
        where c.status = 'sending' and c.whatsapp_account_id is not null
        group by c.whatsapp_account_id`,
  );
  const senderLeases = await rowsOf<{ owner: string; n: number | string }>(
    db,
    sql`select owner, count(*) as n from sender_leases where expires_at > now() group by owner`,
  );
  const syncs = await rowsOf<{ id: number; owner: string | null; live: boolean; progress: number; total: number }>(
    db,
    sql`select id, sync_lease_owner as owner, coalesce(sync_lease_expires_at > now(), false) as live,
          sync_progress_contacts as progress, sync_total_contacts as total
        from kommo_accounts where sync_status = 'syncing'`,
  );
  const [backlog] = await rowsOf<{ n: number | string; age: number | string | null }>(
    db,
    sql`select count(*) as n, extract(epoch from now() - min(received_at)) as age
        from webhook_events where process_after <= now()`,
  );
  // The campaigns the rollups job has still to fold: those whose change mark moved from the one
  // folded (or never folded), the job's own test (campaignsToFold). A change not folded happened
  // after the campaign's fold, and, unless the job held the campaign back (FOLD_GAP, a sending
  // campaign's 30 s), after the start of the job's last complete pass, which folded everything
  // then due: it is dated by the later of the two (or the campaign's creation). A late reply to
  // an old campaign is not dated at its fold days ago, and a stalled job ages every change.
  // One pass over campaigns with the rollup's primary key, as each pass of the job.
  const [rollups] = await rowsOf<{ age: number | string | null }>(
    db,
    sql`select extract(epoch from now() - min(greatest(c.created_at, r.folded_at, p.passed_at))) as age
        from campaigns c
        left join campaign_rollups r on r.campaign_id = c.id
        left join campaign_rollup_passes p on p.name = ${ROLLUP_JOB}
        where r.campaign_id is null or r.source_mark <> ${changeMark(sql`c`)}`,
  );
  const syncLeases = new Map<string, number>();
  for (const s of syncs) if (s.owner && s.live) syncLeases.set(s.owner, (syncLeases.get(s.owner) ?? 0) + 1);
  return {
    queue: queue.map((r) => ({ whatsappAccountId: Number(r.id), pending: Number(r.n) })),
    senderLeases: senderLeases.map((r) => ({ owner: r.owner, count: Number(r.n) })),
    syncLeases: [...syncLeases].map(([owner, count]) => ({ owner, count })),
    webhookBacklog: Number(backlog?.n ?? 0),
    webhookOldestSeconds: Number(backlog?.age ?? 0),
    syncs: syncs.map((s) => ({ kommoAccountId: Number(s.id), progress: Number(s.progress), total: Number(s.total) })),
    rollupLagSeconds: Math.max(0, Number(rollups?.age ?? 0)),
  };
}
