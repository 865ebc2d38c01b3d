import { sql } from 'drizzle-orm';
import { kommoAccounts } from '../../db/schema/kommo';

/** `kommo_accounts.phone_recheck` as stored; the API view adds `interrupted` (account-row.ts). */
export interface StoredRecheck {
  status: 'running' | 'done';
  country: string | null;
  processed: number;
  total: number;
  became_valid: number;
  became_invalid: number;
  changed: number;
  started_at: string;
  finished_at: string | null;
}

export function parseRecheck(value: unknown): StoredRecheck | null {
  return value && typeof value === 'object' && 'status' in value ? (value as StoredRecheck) : null;
}

/**
 * The SET of the update that queues a re-check (kommo-accounts-service): the runner picks the
 * account up like a sync. The previous status and the account's contact count are read by the
 * same statement, so nothing can change between reading and queuing.
 */
export function queueRecheckSet(country: string | null) {
  return {
    syncStatus: 'syncing' as const,
    syncState: sql`jsonb_build_object('requested', 'recheck', 'recheck', jsonb_build_object(
      'country', ${country}::text, 'afterId', 0,
      'previousStatus', case when ${kommoAccounts.syncStatus} = 'syncing' then 'synced' else ${kommoAccounts.syncStatus} end))`,
    syncLeaseOwner: null,
    syncLeaseExpiresAt: null,
    phoneRecheck: sql`jsonb_build_object('status', 'running', 'country', ${country}::text, 'processed', 0,
      'total', coalesce((select k.n from contact_key_counts k where k.account_id = ${kommoAccounts.id} and k.key = '#'), 0),
      'became_valid', 0, 'became_invalid', 0, 'changed', 0,
      'started_at', ${new Date().toISOString()}::text, 'finished_at', null)`,
  };
}
