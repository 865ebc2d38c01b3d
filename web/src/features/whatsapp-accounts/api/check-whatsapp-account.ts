import type { TestWhatsAppAccountResponse, WhatsAppAccount } from '@masivo/contract/whatsapp-accounts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { whatsappAccountsKeys } from '@/api/whatsapp-accounts';

/** POST /{id}/test: a refused test is `{ success: false, error }`, not an HTTP error. */
export const testWhatsAppAccount = (id: number) => api.post<TestWhatsAppAccountResponse>(`/whatsapp-accounts/${id}/test`);

export const refreshWhatsAppAccount = (id: number) => api.post<WhatsAppAccount>(`/whatsapp-accounts/${id}/refresh`);

export function useTestWhatsAppAccount() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: testWhatsAppAccount,
    // Spec §7: the list is reloaded on success.
    onSuccess: (result) => {
      if (result.success) void qc.invalidateQueries({ queryKey: whatsappAccountsKeys.all });
    },
  });
}

export function useRefreshWhatsAppAccount() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: refreshWhatsAppAccount,
    onSuccess: () => qc.invalidateQueries({ queryKey: whatsappAccountsKeys.all }),
  });
}
