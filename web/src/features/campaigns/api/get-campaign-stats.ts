import type { Campaign } from '@masivo/contract/campaigns';
import type { CampaignStats } from '@masivo/contract/stats';
import { useQuery } from '@tanstack/react-query';
import { browserTimeZone } from '@/components/charts/chart-format';
import { api } from '@/lib/api-client';
import { campaignsKeys } from '@/api/campaigns';
import { campaignPollInterval } from './get-campaign';

/**
 * While the campaign is live its charts refresh every 15 s, not every 5 s like its counts: the
 * stats are read from rollups a background job folds every few seconds (a big sending campaign
 * less often; the answer's `folded_at` is shown), and a chart moves little in 5 s.
 */
export const STATS_POLL_MS = 15_000;

/** A campaign's charts, bucketed in the browser's zone; live while the campaign is. */
export const getCampaignStats = (id: number, tz: string) => api.get<CampaignStats>(`/campaigns/${id}/stats`, { tz });

export function useCampaignStats(campaign: Pick<Campaign, 'id' | 'status' | 'completed_at'>) {
  const tz = browserTimeZone();
  return useQuery({
    queryKey: [...campaignsKeys.detail(campaign.id), 'stats', tz],
    queryFn: () => getCampaignStats(campaign.id, tz),
    refetchInterval: () => (campaignPollInterval(campaign) ? STATS_POLL_MS : false),
    retry: false,
  });
}
