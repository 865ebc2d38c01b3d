import type { KommoAccount, PhoneRecheck, SyncStatusInfo } from '@masivo/contract/kommo-accounts';
import type { kommoAccounts } from '../../db/schema/kommo';
import { parseRecheck } from './phone-recheck-state';
import { toFreshness } from '../kommo-inbound/freshness';

type Row = typeof kommoAccounts.$inferSelect;

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

/** A re-check of the phones is running while the account's sync slot holds it. */
export const recheckRunning = (r: Row) =>
  r.syncStatus === 'syncing' && (r.syncState as { requested?: string } | null)?.requested === 'recheck';

/** The last re-check of the phones; one left 'running' without its job (cancelled, failed) is interrupted. */
export function toPhoneRecheck(r: Row): PhoneRecheck | null {
  const stored = parseRecheck(r.phoneRecheck);
  if (!stored) return null;
  const status = stored.status === 'running' && !recheckRunning(r) ? 'interrupted' : stored.status;
  return { ...stored, status };
}

/** The API view of an account: everything but the token and the sync runner's bookkeeping. */
export function toKommoAccount(r: Row): KommoAccount {
  return {
    id: r.id,
    subdomain: r.subdomain,
    phone_field_id: r.phoneFieldId,
    time_zone_field: r.timeZoneField ?? null,
    time_zone: r.timeZone,
    country: r.country,
    default_country: r.defaultCountry ?? null,
    phone_recheck: toPhoneRecheck(r),
    sync_status: r.syncStatus,
    sync_total_contacts: r.syncTotalContacts,
    sync_progress_contacts: r.syncProgressContacts,
    last_sync_at: iso(r.lastSyncAt),
    sync_error_message: r.syncErrorMessage,
    freshness: toFreshness(r),
    created_at: iso(r.createdAt)!,
    updated_at: iso(r.updatedAt)!,
  };
}

export function toSyncStatus(r: Row): SyncStatusInfo {
  const a = toKommoAccount(r);
  return {
    id: a.id,
    sync_status: a.sync_status,
    sync_total_contacts: a.sync_total_contacts,
    sync_progress_contacts: a.sync_progress_contacts,
    last_sync_at: a.last_sync_at,
    sync_error_message: a.sync_error_message,
    phone_recheck: a.phone_recheck,
  };
}
