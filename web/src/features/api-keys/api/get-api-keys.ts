import type { ApiKey } from '@masivo/contract/api-keys';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';

export const apiKeysKeys = { all: ['api-keys'] as const };

export const getApiKeys = () => api.get<ApiKey[]>('/api-keys');

export const apiKeysQueryOptions = () => queryOptions({ queryKey: apiKeysKeys.all, queryFn: getApiKeys });

/** The organisation's keys, active or not (revoked and expired ones stay listed, for the record). */
export const useApiKeys = () => useQuery(apiKeysQueryOptions());
