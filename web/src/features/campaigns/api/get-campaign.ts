import type { Campaign } from '@masivo/contract/campaigns';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { campaignsKey } from './get-campaigns';

/** Spec §9: a sending campaign is refetched every 5 seconds on the detail screen. */
export const CAMPAIGN_POLL_MS = 5000;

export const campaignKey = (id: number) => [...campaignsKey, id] as const;

export const getCampaign = (id: number) => api.get<Campaign>(`/campaigns/${id}`);

export const getCampaignQueryOptions = (id: number) =>
  queryOptions({ queryKey: campaignKey(id), queryFn: () => getCampaign(id), retry: false });

export const pollWhileSending = (c: Pick<Campaign, 'status'> | undefined) =>
  c?.status === 'sending' ? CAMPAIGN_POLL_MS : false;

export function useCampaign(id: number) {
  return useQuery({
    ...getCampaignQueryOptions(id),
    enabled: Number.isInteger(id) && id > 0,
    refetchInterval: (query) => pollWhileSending(query.state.data),
  });
}
