import type { GraphClient } from './graph-client';

/** `product_type` of the Marketing Messages API in `template_analytics` (without it: Cloud API only). */
export const MM_PRODUCT_TYPE = 'MARKETING_MESSAGES_API_FOR_WHATSAPP';

interface AnalyticsAnswer {
  data?: Array<{ data_points?: Array<{ template_id?: string; clicked?: Array<{ type?: string; count?: number }> }> }>;
}

/**
 * Link clicks Meta counts for one template over days (`GET /{waba}/template_analytics`, DAILY,
 * `metric_types=[CLICKED]`, `product_type` for the Marketing Messages API; start and end in Unix
 * seconds, snapped to 00:00 UTC by Meta, 90 days back at most). The sum of `url_button` counts
 * (all clicks; `unique_url_button` is not added to it). Throws GraphApiError when Meta refuses
 * (analytics not confirmed, or a WABA of the EU, UK or Japan, for which Meta gives none).
 */
export async function templateClicks(
  client: GraphClient,
  token: string,
  wabaId: string,
  metaTemplateId: string,
  range: { start: Date; end: Date },
  productType: string = MM_PRODUCT_TYPE,
): Promise<number> {
  const res = await client.call<AnalyticsAnswer>({
    method: 'GET',
    path: `/${encodeURIComponent(wabaId)}/template_analytics`,
    token,
    query: {
      start: String(Math.floor(range.start.getTime() / 1000)),
      end: String(Math.ceil(range.end.getTime() / 1000)),
      granularity: 'DAILY',
      metric_types: JSON.stringify(['CLICKED']),
      template_ids: JSON.stringify([metaTemplateId]),
      product_type: productType,
    },
  });
  let total = 0;
  for (const block of res?.data ?? []) {
    for (const point of block.data_points ?? []) {
      for (const c of point.clicked ?? []) if (c.type === 'url_button' && typeof c.count === 'number') total += c.count;
    }
  }
  return total;
}
