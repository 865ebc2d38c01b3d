import { sql } from 'drizzle-orm';
import { expiryLabel, type CampaignMarketing } from '@masivo/contract/marketing-messages';
import type { Db } from '../../db/client';
import { rowsOf } from '../../db/sql';
import { EXACT_BELOW } from './campaign-rollups';
import { marketingRouteOpen } from '../whatsapp-accounts/marketing-onboarding';
import type { CampaignRow } from './campaign-view';

/**
 * The route of a recipient as the screens and exports show it: the one recorded (0047), and for
 * a row sent without one, /messages (before the Marketing Messages API, and every flush that
 * carried no marketing-route send, write none: result-writer.ts).
 */
export const ROUTE_OF_RECIPIENT = sql`case when r.route is not null then r.route when r.sent_at is not null then 'messages' end`;

/**
 * A campaign's Marketing Messages API figures for its detail: expired recipients ("Vencido"),
 * people who clicked (click webhooks) and Meta's template analytics clicks, recipients per route,
 * and the template's "Vence en …" when the campaign's template goes by the marketing route.
 * Clicks are "no disponible" when Meta gives none for the account: nothing went by the
 * marketing route, no click arrived and the analytics gave no clicks.
 */
export async function campaignMarketing(db: Db, row: CampaignRow, opts: { fromRollupsAt?: number } = {}): Promise<CampaignMarketing> {
  // A big campaign's from the rollups once folded (its screen is read every few seconds while it
  // sends; a million recipients took over 100 ms to count), a small one's from its recipients.
  const [folded] =
    row.totalRecipients >= (opts.fromRollupsAt ?? EXACT_BELOW)
      ? await rowsOf<{ mm: number | string; cloud: number | string }>(
          db,
          sql`select routed_marketing as mm, routed_cloud as cloud from campaign_rollups where campaign_id = ${row.id} and costs_folded`,
        )
      : [];
  // A route is recorded only for a message Meta accepted: with none accepted (the counter is
  // exact at every commit) both counts are 0 without reading the recipients.
  const [routes] = folded
    ? [folded]
    : row.messagesSent === 0
    ? [{ mm: 0, cloud: 0 }]
    : await rowsOf<{ mm: number | string; cloud: number | string }>(
        db,
        sql`select count(*) filter (where route = 'marketing_messages')::int as mm,
                   count(*) filter (where route is distinct from 'marketing_messages' and sent_at is not null)::int as cloud
            from campaign_recipients where campaign_id = ${row.id}`,
      );
  const [t] = row.templateId
    ? await rowsOf<{ category: string; ttl: number | null; mm_onboarding_status: string | null; mm_fallback_at: string | null }>(
        db,
        sql`select t.category, t.message_send_ttl_seconds as ttl, wa.mm_onboarding_status, wa.mm_fallback_at
            from templates t left join whatsapp_accounts wa on wa.id = ${row.whatsappAccountId}
            where t.id = ${row.templateId}`,
      )
    : [];
  const mm = Number(routes?.mm ?? 0);
  const marketing = (t?.category ?? '').toLowerCase() === 'marketing';
  const open = !!t && marketingRouteOpen({ mmOnboardingStatus: t.mm_onboarding_status, mmFallbackAt: t.mm_fallback_at });
  return {
    expired_count: row.expiredCount ?? 0,
    clicked_count: row.clickedCount ?? 0,
    analytics_clicks: row.analyticsClicks ?? null,
    analytics_clicks_at: row.analyticsClicksAt?.toISOString() ?? null,
    clicks_available: mm > 0 || (row.clickedCount ?? 0) > 0 || row.analyticsClicks !== null,
    by_route: { messages: Number(routes?.cloud ?? 0), marketing_messages: mm },
    expiry_label: marketing && (open || mm > 0) ? expiryLabel(t?.ttl ?? null, 'marketing') : null,
  };
}
