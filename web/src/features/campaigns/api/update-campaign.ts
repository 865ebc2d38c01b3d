import type { Campaign, UpdateCampaignInput } from '@masivo/contract/campaigns';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import toast from 'react-hot-toast';
import { campaignsKeys } from '@/api/campaigns';
import { api, errorMessage } from '@/lib/api-client';

export const updateCampaign = (id: number, body: UpdateCampaignInput) => api.put<Campaign>(`/campaigns/${id}`, body);

/** PUT /campaigns/{id}: a draft's or a scheduled campaign's changes; the toast says what changed. */
export function useUpdateCampaign(id: number) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ body }: { body: UpdateCampaignInput; success: string }) => updateCampaign(id, body),
    onSuccess: (_data, { success }) => {
      toast.success(success);
      return qc.invalidateQueries({ queryKey: campaignsKeys.all });
    },
    onError: (err) => {
      toast.error(errorMessage(err, 'Error al actualizar la campaña'));
    },
  });
}
