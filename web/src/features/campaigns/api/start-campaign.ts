import type { Campaign } from '@masivo/contract/campaigns';
import { api } from '@/lib/api-client';
import { campaignsKeys } from '@/api/campaigns';
import { useCampaignAction } from './campaign-action';

export const startCampaign = (id: number) => api.post<Campaign>(`/campaigns/${id}/start`);

/**
 * The start, from the send confirmation: it resolves as soon as the server accepts, and the
 * screens behind refresh afterwards (waiting for them kept the page behind a closing dialog).
 */
export const useStartCampaign = (asks = false) =>
  useCampaignAction(startCampaign, {
    // A start that needs approval leaves the campaign pending: the toast says so.
    success: asks ? 'Solicitud de aprobación enviada' : 'Campaña iniciada exitosamente',
    error: 'Error al iniciar la campaña',
    refresh: (qc) => void qc.invalidateQueries({ queryKey: campaignsKeys.all }),
  });
