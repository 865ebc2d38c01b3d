import type { Campaign } from '@masivo/contract/campaigns';
import { api } from '@/lib/api-client';
import { useCampaignAction } from './campaign-action';

export const startCampaign = (id: number) => api.post<Campaign>(`/campaigns/${id}/start`);

export const useStartCampaign = () =>
  useCampaignAction(startCampaign, { success: 'Campaña iniciada exitosamente', error: 'Error al iniciar la campaña' });
