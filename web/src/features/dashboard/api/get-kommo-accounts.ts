import type { KommoAccount } from '@masivo/contract/kommo-accounts';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

// Same key as the other screens that list Kommo accounts, so they share the cache.
export const getKommoAccountsQueryOptions = () =>
  queryOptions({ queryKey: ['kommo-accounts'], queryFn: () => api.get<KommoAccount[]>('/kommo/accounts') });

export const useKommoAccounts = () => useQuery(getKommoAccountsQueryOptions());
