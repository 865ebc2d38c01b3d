import type { Campaign } from '@masivo/contract/campaigns';
import { api } from '@/lib/api-client';
import { useCampaignAction } from './campaign-action';

/** «Actualizar clics de Meta»: the template analytics' clicks for the campaign's days. */
export const refreshMetaClicks = (id: number) => api.post<Campaign>(`/campaigns/${id}/meta-clicks`);

export const useRefreshMetaClicks = () =>
  useCampaignAction(refreshMetaClicks, { success: 'Clics de Meta actualizados', error: 'No se pudieron leer los clics de Meta' });
