import type { ActivityPage } from '@masivo/contract/activity';
import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { campaignKey } from './get-campaign';

/**
 * The campaign's timeline (its newest 50 entries). Keyed under the campaign, so every action's
 * refresh reloads it, and by its status, so a change the engine made (a pause by Meta, the end)
 * shows up when the detail's polling sees it.
 */
export const useCampaignActivity = (id: number, status: string | undefined) =>
  useQuery({
    queryKey: [...campaignKey(id), 'activity', status],
    queryFn: () => api.get<ActivityPage>(`/campaigns/${id}/activity`, { limit: 50 }),
    enabled: Number.isInteger(id) && id > 0,
  });
