import type { GraphClient } from './graph-client';

/** Meta's lookback windows for the template comparison, in seconds (7, 30, 60, 90 days). */
export const COMPARE_WINDOW_7_DAYS = 604_800;

/** One template's side of Meta's comparison. */
export interface TemplateComparison {
  /** Template ids in increasing order of block rate (Meta gives the order, not the rates). */
  orderByBlockRate: string[];
  sends: Record<string, number>;
  topBlockReason: Record<string, string>;
}

interface CompareBody {
  data?: Array<{
    metric?: string;
    type?: string;
    order_by_relative_metric?: unknown[];
    number_values?: Array<{ key?: unknown; value?: unknown }>;
    string_values?: Array<{ key?: unknown; value?: unknown }>;
  }>;
}

/** Meta's answer (`GET /{template_id}/compare`), read leniently: an unknown metric is ignored. */
export function parseComparison(body: CompareBody): TemplateComparison {
  const out: TemplateComparison = { orderByBlockRate: [], sends: {}, topBlockReason: {} };
  for (const m of body.data ?? []) {
    if (m.metric === 'BLOCK_RATE') out.orderByBlockRate = (m.order_by_relative_metric ?? []).map(String);
    if (m.metric === 'MESSAGE_SENDS') for (const v of m.number_values ?? []) out.sends[String(v.key)] = Number(v.value);
    if (m.metric === 'TOP_BLOCK_REASON') for (const v of m.string_values ?? []) out.topBlockReason[String(v.key)] = String(v.value);
  }
  return out;
}

/**
 * Compares two templates of one WABA over the last 7 days (Meta needs ≥ 1,000 sends of each in
 * the window; otherwise it answers with an error, which the caller records).
 */
export async function compareTemplates(client: GraphClient, token: string, targetMetaId: string, otherMetaId: string, nowSec = Math.floor(Date.now() / 1000)): Promise<TemplateComparison> {
  const body = await client.call<CompareBody>({
    method: 'GET',
    path: `/${encodeURIComponent(targetMetaId)}/compare`,
    token,
    query: { template_ids: `[${otherMetaId}]`, start: nowSec - COMPARE_WINDOW_7_DAYS, end: nowSec },
  });
  return parseComparison(body);
}
