import type { SyncAllResult, SyncResult } from '@masivo/contract/templates';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { templatesKeys } from '@/api/templates';

export const syncTemplates = (whatsappAccountId: number) =>
  api.post<SyncResult>('/templates/sync', { whatsapp_account_id: whatsappAccountId });

export const syncAllTemplates = () => api.post<SyncAllResult>('/templates/sync-all');

export function useSyncTemplates() {
  const qc = useQueryClient();
  return useMutation({ mutationFn: syncTemplates, onSettled: () => qc.invalidateQueries({ queryKey: templatesKeys.all }) });
}

export function useSyncAllTemplates() {
  const qc = useQueryClient();
  return useMutation({ mutationFn: syncAllTemplates, onSettled: () => qc.invalidateQueries({ queryKey: templatesKeys.all }) });
}
