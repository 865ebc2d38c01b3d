import type { SyncStatusInfo } from '@masivo/contract/kommo-accounts';
import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';

/** Progress refreshes every 1.5 s while the account syncs. */
export const SYNC_POLL_MS = 1500;

export const getSyncStatus = (id: number) => api.get<SyncStatusInfo>(`/kommo/accounts/${id}/sync-status`);

export const useSyncStatus = (id: number, syncing: boolean) =>
  useQuery({
    queryKey: ['kommo-accounts', id, 'sync-status'],
    queryFn: () => getSyncStatus(id),
    enabled: syncing,
    staleTime: 0,
    refetchInterval: (q) => ((q.state.data?.sync_status ?? 'syncing') === 'syncing' ? SYNC_POLL_MS : false),
  });
