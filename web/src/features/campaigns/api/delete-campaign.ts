import { api } from '@/lib/api-client';
import { useCampaignAction } from './campaign-action';
import { campaignKey } from './get-campaign';
import { campaignsKeys } from '@/api/campaigns';

export const deleteCampaign = (id: number) => api.delete<unknown>(`/campaigns/${id}`);

export const useDeleteCampaign = () =>
  useCampaignAction(deleteCampaign, {
    success: 'Campaña eliminada exitosamente',
    error: 'Error al eliminar la campaña',
    // The deleted campaign must not be refetched (its screen would flash "not found").
    refresh: (qc, id) => {
      qc.removeQueries({ queryKey: campaignKey(id) });
      return qc.invalidateQueries({ queryKey: campaignsKeys.all, exact: true });
    },
  });
