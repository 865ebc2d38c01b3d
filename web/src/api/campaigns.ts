import type { Campaign } from '@masivo/contract/campaigns';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../lib/api-client';

/** One campaign's key nests under the list's, so invalidating the list refreshes open detail screens too. */
export const campaignsKeys = {
  all: ['campaigns'] as const,
  detail: (id: number) => ['campaigns', id] as const,
};

export const getCampaigns = () => api.get<Campaign[]>('/campaigns');

export const campaignsQueryOptions = () => queryOptions({ queryKey: campaignsKeys.all, queryFn: getCampaigns });

const SENDING_POLL_MS = 5000;

/** The list refreshes itself while any campaign is sending, so its progress moves (campaigns screen and dashboard). */
export const useCampaigns = () =>
  useQuery({
    ...campaignsQueryOptions(),
    refetchInterval: (q) => (q.state.data?.some((c) => c.status === 'sending') ? SENDING_POLL_MS : false),
  });
