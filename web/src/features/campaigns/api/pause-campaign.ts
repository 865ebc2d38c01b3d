import type { Campaign } from '@masivo/contract/campaigns';
import { api } from '@/lib/api-client';
import { useCampaignAction } from './campaign-action';

export const pauseCampaign = (id: number) => api.post<Campaign>(`/campaigns/${id}/pause`);

export const usePauseCampaign = () =>
  useCampaignAction(pauseCampaign, { success: 'Campaña pausada exitosamente', error: 'Error al pausar la campaña' });
