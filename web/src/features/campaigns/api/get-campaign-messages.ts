import type { Campaign, CampaignMessagesPage, RecipientGroup, RecipientStatus } from '@masivo/contract/campaigns';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { campaignKey, campaignPollInterval } from './get-campaign';

export interface CampaignMessagesQuery {
  status?: RecipientStatus;
  /** What they did after the send: replied, not_replied, tapped (with `button`)… */
  group?: RecipientGroup;
  button?: string;
  page: number;
  limit: number;
}

export const getCampaignMessages = (id: number, q: CampaignMessagesQuery) =>
  api.get<CampaignMessagesPage>(`/campaigns/${id}/messages`, { status: q.status, group: q.group, button: q.button, page: q.page, limit: q.limit });

export const getCampaignMessagesQueryOptions = (id: number, q: CampaignMessagesQuery) =>
  queryOptions({
    queryKey: [...campaignKey(id), 'messages', q] as const,
    queryFn: () => getCampaignMessages(id, q),
    placeholderData: keepPreviousData,
  });

/** Recipients move through their states while the campaign sends, so they poll with it. */
export function useCampaignMessages(id: number, q: CampaignMessagesQuery, campaign: Pick<Campaign, 'status' | 'completed_at'>) {
  return useQuery({ ...getCampaignMessagesQueryOptions(id, q), refetchInterval: () => campaignPollInterval(campaign) });
}
