import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { rowsOf } from '../../db/sql';
import { laneBlockedSql } from '../../services/campaigns/campaign-numbers';
import { UNANSWERED_MS } from './pacer';

/**
 * One worker paces a WhatsApp number at a time, under a lease renewed while it sends. The
 * holder trusts its lease only until this long before it could expire: a full rate window
 * after the last moment Meta can count its last request (the pacer's bound for a request
 * still unanswered). So when a new holder starts (after the expiry), no send of the old one,
 * dead or stalled, can still count in the new holder's windows: the number's rate holds
 * across processes, crashes and stalls included.
 */
export const LEASE_WINDOW_MARGIN_MS = 1_000 + UNANSWERED_MS;

export class SenderLeases {
  constructor(
    private readonly db: Db,
    private readonly owner: string,
    private readonly ttlMs: number,
  ) {}

  /** Numbers with sending campaigns whose lease is free or expired. */
  async candidates(): Promise<number[]> {
    const rows = await rowsOf<{ id: number }>(
      this.db,
      sql`select distinct x.id from (
            select c.whatsapp_account_id as id from campaigns c where c.status = 'sending' and c.whatsapp_account_id is not null
              and not exists (select 1 from campaign_numbers m where m.campaign_id = c.id)
            union
            -- The numbers of several-number campaigns that can send for them now.
            select n.whatsapp_account_id from campaign_numbers n
            join campaigns c on c.id = n.campaign_id join whatsapp_accounts a on a.id = n.whatsapp_account_id
            where c.status = 'sending' and (${laneBlockedSql('a', 'c')}) is null
          ) x
          left join sender_leases l on l.whatsapp_account_id = x.id
          where l.whatsapp_account_id is null or l.expires_at <= now() or l.owner = ${this.owner}`,
    );
    return rows.map((r) => Number(r.id));
  }

  /** Returns the local time until which the lease may be trusted, or null if someone holds it. */
  async acquire(accountId: number): Promise<number | null> {
    const startedAt = performance.now();
    const rows = await rowsOf<{ id: number }>(
      this.db,
      sql`insert into sender_leases (whatsapp_account_id, owner, acquired_at, renewed_at, expires_at)
          values (${accountId}, ${this.owner}, now(), now(), now() + ${this.ttlMs} * interval '1 millisecond')
          on conflict (whatsapp_account_id) do update
            set owner = excluded.owner, acquired_at = now(), renewed_at = now(), expires_at = excluded.expires_at
            where sender_leases.expires_at <= now() or sender_leases.owner = excluded.owner
          returning whatsapp_account_id as id`,
    );
    return rows.length ? this.trustedUntil(startedAt) : null;
  }

  /** Renews the leases still held; returns their new trusted-until times. */
  async renew(accountIds: number[]): Promise<Map<number, number>> {
    const out = new Map<number, number>();
    if (!accountIds.length) return out;
    const startedAt = performance.now();
    const rows = await rowsOf<{ id: number }>(
      this.db,
      sql`update sender_leases set renewed_at = now(), expires_at = now() + ${this.ttlMs} * interval '1 millisecond'
          where owner = ${this.owner} and expires_at > now()
            and whatsapp_account_id in (select (jsonb_array_elements_text(${JSON.stringify(accountIds)}::jsonb))::int)
          returning whatsapp_account_id as id`,
    );
    for (const r of rows) out.set(Number(r.id), this.trustedUntil(startedAt));
    return out;
  }

  /** Gives the number back; the next holder may start one window later. */
  async release(accountId: number): Promise<void> {
    await this.db.execute(sql`update sender_leases set expires_at = now() + ${LEASE_WINDOW_MARGIN_MS} * interval '1 millisecond'
      where whatsapp_account_id = ${accountId} and owner = ${this.owner}`);
  }

  private trustedUntil(requestedAt: number): number {
    return requestedAt + this.ttlMs - LEASE_WINDOW_MARGIN_MS;
  }
}
