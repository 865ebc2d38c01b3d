import type { CampaignStatus } from '@masivo/contract/campaigns';
import type { CampaignWriteback, KommoPipelineInfo, WritebackSettingsInput, WritebackSettingsView } from '@masivo/contract/kommo-writeback';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';

/** Write-back to Kommo: the account's settings and pipelines, and a campaign's progress. */
export const writebackKeys = {
  settings: (accountId: number) => ['kommo-accounts', accountId, 'writeback'] as const,
  pipelines: (accountId: number) => ['kommo-accounts', accountId, 'pipelines'] as const,
  campaign: (campaignId: number) => ['campaigns', campaignId, 'kommo-writeback'] as const,
};

/** While a write-back runs the progress line is refreshed this often. */
export const WRITEBACK_POLL_MS = 3000;

export function useWritebackSettings(accountId: number, enabled: boolean) {
  return useQuery({
    queryKey: writebackKeys.settings(accountId),
    queryFn: () => api.get<WritebackSettingsView>(`/kommo/accounts/${accountId}/writeback`),
    enabled,
  });
}

export function useKommoPipelines(accountId: number, enabled: boolean) {
  return useQuery({
    queryKey: writebackKeys.pipelines(accountId),
    queryFn: () => api.get<KommoPipelineInfo[]>(`/kommo/accounts/${accountId}/pipelines`),
    enabled,
    retry: false,
    staleTime: 60_000,
  });
}

export function useSaveWriteback(accountId: number) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (input: WritebackSettingsInput) => api.put<WritebackSettingsView>(`/kommo/accounts/${accountId}/writeback`, input),
    onSuccess: (saved) => qc.setQueryData(writebackKeys.settings(accountId), saved),
  });
}

export function writebackPollInterval(w: CampaignWriteback | undefined, status: CampaignStatus): number | false {
  if (!w) return false;
  if (w.state === 'running' || w.state === 'retrying') return WRITEBACK_POLL_MS;
  // A completed campaign is taken into the queue within a second or two.
  if (w.state === 'waiting' && status === 'completed') return WRITEBACK_POLL_MS;
  return false;
}

export function useCampaignWriteback(campaignId: number, status: CampaignStatus) {
  return useQuery({
    queryKey: writebackKeys.campaign(campaignId),
    queryFn: () => api.get<CampaignWriteback>(`/campaigns/${campaignId}/kommo-writeback`),
    refetchInterval: (q) => writebackPollInterval(q.state.data, status),
  });
}
