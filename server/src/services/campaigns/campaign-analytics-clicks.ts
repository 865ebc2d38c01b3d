import { sql } from 'drizzle-orm';
import type { Campaign } from '@masivo/contract/campaigns';
import type { AppContext } from '../../context';
import { rowsOf } from '../../db/sql';
import { GraphApiError } from '../../integrations/whatsapp/graph-errors';
import { templateClicks } from '../../integrations/whatsapp/template-analytics';
import { badRequest } from '../../lib/errors';
import { getCampaign, loadCampaignRow } from './campaign-queries';

/** Meta keeps template analytics 90 days. */
const LOOKBACK_MS = 90 * 86_400_000;

/**
 * «Clics según Meta»: the clicks Meta's template analytics report for the campaign's template on
 * the days it sent (Marketing Messages API product), stored on the campaign. Where Meta gives
 * none for the account (a refusal: analytics not offered), the stored value is cleared and the
 * screen says «no disponible». Aggregate per template and day: another campaign with the same
 * template on the same days adds to it, as the screen notes.
 */
export async function refreshAnalyticsClicks(ctx: AppContext, userId: number, campaignId: number): Promise<Campaign> {
  const row = await loadCampaignRow(ctx.db, userId, campaignId);
  if (!row.startedAt || !row.templateId || !row.whatsappAccountId) throw badRequest('La campaña todavía no envió mensajes');
  const [t] = await rowsOf<{ meta_id: string | null; token: string; waba: string }>(
    ctx.db,
    sql`select t.meta_id, wa.access_token_enc as token, wa.business_account_id as waba
        from templates t join whatsapp_accounts wa on wa.id = ${row.whatsappAccountId} and wa.user_id = ${userId}
        where t.id = ${row.templateId} and t.user_id = ${userId}`,
  );
  if (!t?.meta_id) throw badRequest('La plantilla de la campaña no está en Meta');
  const end = row.completedAt ?? new Date();
  const start = new Date(Math.max(row.startedAt.getTime(), Date.now() - LOOKBACK_MS));
  let clicks: number | null;
  try {
    clicks = await templateClicks(ctx.graph, ctx.secrets.open(t.token), t.waba, t.meta_id, { start, end });
  } catch (err) {
    if (!(err instanceof GraphApiError) || err.httpStatus === null || err.httpStatus >= 500 || err.httpStatus === 429) throw err;
    clicks = null;
  }
  await ctx.db.execute(sql`update campaigns set analytics_clicks = ${clicks}, analytics_clicks_at = now(), updated_at = now()
    where id = ${campaignId} and user_id = ${userId}`);
  return getCampaign(ctx.db, userId, campaignId);
}
