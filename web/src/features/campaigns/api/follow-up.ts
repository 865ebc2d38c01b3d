import type { Campaign, CreateFollowUpInput, FollowUpCount, RecipientGroup } from '@masivo/contract/campaigns';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { campaignsKeys } from '@/api/campaigns';
import { campaignKey } from './get-campaign';

export interface FollowUpGroup {
  group: RecipientGroup;
  hours?: number;
  button?: string;
}

/** How many contacts "Nueva campaña para…" would take for this group (null: not asked yet). */
export const useFollowUpCount = (id: number, q: FollowUpGroup | null) =>
  useQuery({
    queryKey: [...campaignKey(id), 'follow-up', q] as const,
    queryFn: () => api.get<FollowUpCount>(`/campaigns/${id}/follow-up/count`, { ...q }),
    enabled: q !== null,
    placeholderData: keepPreviousData,
    retry: false,
  });

export const createFollowUp = (id: number, input: CreateFollowUpInput) => api.post<Campaign>(`/campaigns/${id}/follow-up`, input);

export function useCreateFollowUp(id: number) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (input: CreateFollowUpInput) => createFollowUp(id, input),
    onSuccess: () => qc.invalidateQueries({ queryKey: campaignsKeys.all }),
  });
}
