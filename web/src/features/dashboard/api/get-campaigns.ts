import type { Campaign } from '@masivo/contract/campaigns';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

// Same key as the campaigns screens, so both share one cached list.
export const getCampaignsQueryOptions = () =>
  queryOptions({ queryKey: ['campaigns'], queryFn: () => api.get<Campaign[]>('/campaigns') });

/** The dashboard follows sending campaigns, like the campaign screens do. */
export const useCampaigns = () =>
  useQuery({
    ...getCampaignsQueryOptions(),
    refetchInterval: (query) => (query.state.data?.some((c) => c.status === 'sending') ? 5000 : false),
  });
