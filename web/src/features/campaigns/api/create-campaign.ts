import type { Campaign } from '@masivo/contract/campaigns';
import type { CreateAnyCampaignInput } from '@masivo/contract/automations';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { campaignsKeys } from '@/api/campaigns';

export const createCampaign = (input: CreateAnyCampaignInput) => api.post<Campaign>('/campaigns', input);

export function useCreateCampaign() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: createCampaign,
    onSuccess: () => qc.invalidateQueries({ queryKey: campaignsKeys.all }),
  });
}
