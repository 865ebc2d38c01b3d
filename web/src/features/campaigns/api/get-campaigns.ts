import type { Campaign } from '@masivo/contract/campaigns';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

export const campaignsKey = ['campaigns'] as const;

export const getCampaigns = () => api.get<Campaign[]>('/campaigns');

export const getCampaignsQueryOptions = () => queryOptions({ queryKey: campaignsKey, queryFn: getCampaigns });

/** The list refreshes itself while any campaign is sending, so its progress moves. */
export function useCampaigns() {
  return useQuery({
    ...getCampaignsQueryOptions(),
    refetchInterval: (query) => (query.state.data?.some((c) => c.status === 'sending') ? 5000 : false),
  });
}
