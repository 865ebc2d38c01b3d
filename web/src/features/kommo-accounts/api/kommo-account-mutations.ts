import type { CreateKommoAccountInput, KommoAccount, KommoField, SyncStatusInfo } from '@masivo/contract/kommo-accounts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { kommoAccountsKeys } from '@/api/kommo-accounts';

export const createKommoAccount = (input: CreateKommoAccountInput) => api.post<KommoAccount>('/kommo/accounts', input);
export const deleteKommoAccount = (id: number) => api.delete<{ success: true }>(`/kommo/accounts/${id}`);
export const fetchKommoFields = (input: { subdomain: string; access_token: string }) => api.post<KommoField[]>('/kommo/custom-fields', input);
export const startContactSync = (accountId: number) =>
  api.post<{ success: true; message: string; account: SyncStatusInfo }>('/kommo/sync-contacts', { account_id: accountId });

export const cancelContactSync = (accountId: number) =>
  api.post<{ success: true; message: string; account: SyncStatusInfo }>(`/kommo/accounts/${accountId}/cancel-sync`, {});

function useInvalidateAccounts() {
  const qc = useQueryClient();
  return () => qc.invalidateQueries({ queryKey: kommoAccountsKeys.all });
}

export function useCreateKommoAccount() {
  const invalidate = useInvalidateAccounts();
  return useMutation({ mutationFn: createKommoAccount, onSuccess: invalidate });
}

export function useDeleteKommoAccount() {
  const invalidate = useInvalidateAccounts();
  return useMutation({ mutationFn: deleteKommoAccount, onSuccess: invalidate });
}

export function useStartContactSync() {
  const invalidate = useInvalidateAccounts();
  return useMutation({ mutationFn: startContactSync, onSuccess: invalidate });
}

/** The live sync status sits under ['kommo-accounts', id, …], so one invalidation refreshes both. */
export function useCancelContactSync() {
  const invalidate = useInvalidateAccounts();
  return useMutation({ mutationFn: cancelContactSync, onSuccess: invalidate });
}

export const useFetchKommoFields = () => useMutation({ mutationFn: fetchKommoFields });

/** "País por defecto": null follows the Kommo account's country. A change re-checks the stored phones. */
export const updateDefaultCountry = ({ id, country }: { id: number; country: string | null }) =>
  api.put<KommoAccount>(`/kommo/accounts/${id}`, { default_country: country });

export function useUpdateDefaultCountry() {
  const invalidate = useInvalidateAccounts();
  return useMutation({ mutationFn: updateDefaultCountry, onSuccess: invalidate });
}
