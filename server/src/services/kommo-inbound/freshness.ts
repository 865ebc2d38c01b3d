import type { KommoFreshness } from '@masivo/contract/kommo-inbound';
import type { kommoAccounts } from '../../db/schema/kommo';

type Row = typeof kommoAccounts.$inferSelect;

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

/** How the account's contacts are kept current between syncs, for its card (never the hook secret). */
export function toFreshness(r: Row): KommoFreshness {
  const source = !r.keepFresh ? 'off' : r.hookStatus === 'subscribed' ? 'webhooks' : 'polling';
  const last = source === 'webhooks' ? r.hookLastReceivedAt : r.catchupLastAt;
  return {
    keep_fresh: r.keepFresh,
    source,
    hook_status: r.hookStatus ?? null,
    last_event_at: iso(last ?? null),
    error: source === 'off' ? null : (r.catchupError ?? r.hookError ?? null),
  };
}
