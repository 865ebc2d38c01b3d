import type { Campaign } from '@masivo/contract/campaigns';
import { api } from '@/lib/api-client';
import { useCampaignAction } from './campaign-action';

/** Beyond the spec: recipients whose outcome was lost go back to the queue, once confirmed. */
export const retryUnknown = (id: number) => api.post<Campaign>(`/campaigns/${id}/retry-unknown`, { confirm: true });

export const useRetryUnknown = () =>
  useCampaignAction(retryUnknown, {
    success: 'Reintento de mensajes desconocidos iniciado',
    error: 'Error al reintentar los mensajes desconocidos',
  });
