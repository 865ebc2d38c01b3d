import type { Campaign } from '@masivo/contract/campaigns';
import { api } from '@/lib/api-client';
import { useCampaignAction } from './campaign-action';

/** Beyond the spec: failed recipients go back to the queue (unknown ones: retry-unknown.ts). */
export const retryFailed = (id: number) => api.post<Campaign>(`/campaigns/${id}/retry-failed`);

export const useRetryFailed = () =>
  useCampaignAction(retryFailed, {
    success: 'Reintento de mensajes fallidos iniciado',
    error: 'Error al reintentar los mensajes fallidos',
  });
