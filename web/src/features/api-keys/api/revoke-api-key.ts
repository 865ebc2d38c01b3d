import type { ApiKey } from '@masivo/contract/api-keys';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { apiKeysKeys } from './get-api-keys';

/** Revoking answers the key as it is now (status «revoked»); the next request made with it is refused. */
export const revokeApiKey = (id: number) => api.delete<ApiKey>(`/api-keys/${id}`);

export function useRevokeApiKey() {
  const qc = useQueryClient();
  return useMutation({ mutationFn: revokeApiKey, onSuccess: () => qc.invalidateQueries({ queryKey: apiKeysKeys.all }) });
}
