import type { KommoAccount } from '@masivo/contract/kommo-accounts';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

export const getKommoAccounts = () => api.get<KommoAccount[]>('/kommo/accounts');

export const kommoAccountsQueryOptions = () => queryOptions({ queryKey: ['kommo-accounts'], queryFn: getKommoAccounts });

/** While any account syncs, the list is refreshed too, so totals and dates follow the cards. */
export const useKommoAccounts = () =>
  useQuery({
    ...kommoAccountsQueryOptions(),
    refetchInterval: (q) => (q.state.data?.some((a) => a.sync_status === 'syncing') ? 5000 : false),
  });
