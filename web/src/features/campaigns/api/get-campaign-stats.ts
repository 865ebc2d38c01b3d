import type { Campaign } from '@masivo/contract/campaigns';
import type { CampaignStats } from '@masivo/contract/stats';
import { useQuery } from '@tanstack/react-query';
import { browserTimeZone } from '@/components/charts/chart-format';
import { api } from '@/lib/api-client';
import { campaignsKeys } from '@/api/campaigns';
import { campaignPollInterval } from './get-campaign';

/** Issue 14: a campaign's charts, bucketed in the browser's zone; live while the campaign is. */
export const getCampaignStats = (id: number, tz: string) => api.get<CampaignStats>(`/campaigns/${id}/stats`, { tz });

export function useCampaignStats(campaign: Pick<Campaign, 'id' | 'status' | 'completed_at'>) {
  const tz = browserTimeZone();
  return useQuery({
    queryKey: [...campaignsKeys.detail(campaign.id), 'stats', tz],
    queryFn: () => getCampaignStats(campaign.id, tz),
    refetchInterval: () => campaignPollInterval(campaign),
    retry: false,
  });
}
