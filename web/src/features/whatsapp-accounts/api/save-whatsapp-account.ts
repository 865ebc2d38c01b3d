import type {
  CreateWhatsAppAccountInput,
  UpdateWhatsAppAccountInput,
  WhatsAppAccount,
} from '@masivo/contract/whatsapp-accounts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { whatsappAccountsKeys } from '@/api/whatsapp-accounts';

export const createWhatsAppAccount = (input: CreateWhatsAppAccountInput) =>
  api.post<WhatsAppAccount>('/whatsapp-accounts', input);

export const updateWhatsAppAccount = ({ id, input }: { id: number; input: UpdateWhatsAppAccountInput }) =>
  api.put<WhatsAppAccount>(`/whatsapp-accounts/${id}`, input);

/** Every change can move the stats cards too, so both queries are refreshed. */
function useInvalidateAccounts() {
  const qc = useQueryClient();
  return () => qc.invalidateQueries({ queryKey: whatsappAccountsKeys.all });
}

export function useCreateWhatsAppAccount() {
  const invalidate = useInvalidateAccounts();
  return useMutation({ mutationFn: createWhatsAppAccount, onSuccess: invalidate });
}

export function useUpdateWhatsAppAccount() {
  const invalidate = useInvalidateAccounts();
  return useMutation({ mutationFn: updateWhatsAppAccount, onSuccess: invalidate });
}

export const deleteWhatsAppAccount = (id: number) => api.delete<{ success: true }>(`/whatsapp-accounts/${id}`);

export function useDeleteWhatsAppAccount() {
  const invalidate = useInvalidateAccounts();
  return useMutation({ mutationFn: deleteWhatsAppAccount, onSuccess: invalidate });
}
