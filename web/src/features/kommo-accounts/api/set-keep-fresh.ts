import type { KommoAccount } from '@masivo/contract/kommo-accounts';
import type { KommoKeepFreshInput } from '@masivo/contract/kommo-inbound';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { kommoAccountsKeys } from '@/api/kommo-accounts';

/** «Mantener contactos al día»: the server subscribes or drops Kommo's webhooks in the background. */
export const setKeepFresh = ({ id, ...input }: KommoKeepFreshInput & { id: number }) => api.patch<KommoAccount>(`/kommo/accounts/${id}/keep-fresh`, input);

export function useSetKeepFresh() {
  const qc = useQueryClient();
  return useMutation({ mutationFn: setKeepFresh, onSuccess: () => qc.invalidateQueries({ queryKey: kommoAccountsKeys.all }) });
}
