import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { jsonParam, rowsOf } from '../../db/sql';

/**
 * `phone_number_quality_update` with `event: THROUGHPUT_UPGRADE`: Meta raised the number to
 * the higher throughput (1,000 msg/s). The payload names the number only by its display
 * number, under the WABA of `entry.id`:
 *
 *   { "object": "whatsapp_business_account", "entry": [{ "id": "<WABA_ID>", "time": 1751247548,
 *     "changes": [{ "field": "phone_number_quality_update", "value": {
 *       "display_phone_number": "15550783881", "event": "THROUGHPUT_UPGRADE",
 *       "current_limit": "TIER_UNLIMITED", "max_daily_conversations_per_business": "TIER_UNLIMITED" } }] }] }
 *
 * The accounts of that WABA with that number get `throughput_level = 'HIGH'`; their senders
 * re-read the account within seconds and pace at min(configured rate, 1,000). Other events of
 * this field (limits) are left to whoever reads them; unknown shapes change nothing.
 */
export interface ThroughputUpgrade {
  wabaId: string;
  /** Digits only. */
  displayDigits: string;
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : null);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null);

/** The upgrade one webhook change announces, or null. */
export function upgradeOfChange(field: string, wabaId: string, value: Json): ThroughputUpgrade | null {
  if (field !== 'phone_number_quality_update') return null;
  if (str(value.event)?.toUpperCase() !== 'THROUGHPUT_UPGRADE') return null;
  const displayDigits = (str(value.display_phone_number) ?? '').replace(/\D/g, '');
  return displayDigits && wabaId ? { wabaId, displayDigits } : null;
}

export function readThroughputUpgrades(payload: unknown): ThroughputUpgrade[] {
  let root = payload;
  if (typeof root === 'string') {
    try {
      root = JSON.parse(root);
    } catch {
      return [];
    }
  }
  const out: ThroughputUpgrade[] = [];
  for (const entry of arr(obj(root)?.entry)) {
    const e = obj(entry);
    const wabaId = str(e?.id);
    if (!e || !wabaId) continue;
    for (const change of arr(e.changes)) {
      const c = obj(change);
      const value = obj(c?.value);
      const upgrade = value && typeof c?.field === 'string' ? upgradeOfChange(c.field, wabaId, value) : null;
      if (upgrade) out.push(upgrade);
    }
  }
  return out;
}

/**
 * Raises the numbers named by these upgrades, among the accounts whose ownership of the WABA
 * Meta confirmed (every tenant's numbers post to the same webhook).
 */
export async function applyThroughputUpgrades(db: Db, upgrades: ThroughputUpgrade[]): Promise<number[]> {
  if (!upgrades.length) return [];
  const rows = await rowsOf<{ id: number }>(
    db,
    sql`update whatsapp_accounts a set throughput_level = 'HIGH', updated_at = now()
        from (select u->>'wabaId' as waba_id, u->>'displayDigits' as digits
              from jsonb_array_elements(${jsonParam(upgrades)}) u) up
        where a.business_account_id = up.waba_id and a.owner_verified_at is not null
          and (regexp_replace(coalesce(a.display_phone_number, ''), '\\D', '', 'g') = up.digits
               or regexp_replace(a.phone_number, '\\D', '', 'g') = up.digits)
          and a.throughput_level is distinct from 'HIGH'
        returning a.id`,
  );
  return rows.map((r) => Number(r.id));
}
