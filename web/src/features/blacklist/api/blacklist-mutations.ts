import type { AddBlacklistInput, BlacklistEntry } from '@masivo/contract/blacklist';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';

export const addToBlacklist = (accountId: number, input: AddBlacklistInput) => api.post<BlacklistEntry>(`/blacklist/${accountId}`, input);
export const removeFromBlacklist = (accountId: number, id: number) => api.delete<{ success: true }>(`/blacklist/${accountId}/${id}`);

export function useAddToBlacklist(accountId: number) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (input: AddBlacklistInput) => addToBlacklist(accountId, input),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['blacklist', accountId] }),
  });
}

export function useRemoveFromBlacklist(accountId: number) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => removeFromBlacklist(accountId, id),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['blacklist', accountId] }),
  });
}
