import type { CreatedApiKey, CreateApiKeyInput } from '@masivo/contract/api-keys';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { apiKeysKeys } from './get-api-keys';

/** The answer is the only time the whole key exists outside the server (it keeps a hash). */
export const createApiKey = (input: CreateApiKeyInput) => api.post<CreatedApiKey>('/api-keys', input);

export function useCreateApiKey() {
  const qc = useQueryClient();
  return useMutation({ mutationFn: createApiKey, onSuccess: () => qc.invalidateQueries({ queryKey: apiKeysKeys.all }) });
}
