import type { KommoAccount } from '@masivo/contract/kommo-accounts';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../lib/api-client';

/** Every screen that lists Kommo accounts reads this one cache entry; mutations invalidate it by this key. */
export const kommoAccountsKeys = { all: ['kommo-accounts'] as const };

export const getKommoAccounts = () => api.get<KommoAccount[]>('/kommo/accounts');

export const kommoAccountsQueryOptions = () => queryOptions({ queryKey: kommoAccountsKeys.all, queryFn: getKommoAccounts });

const SYNC_POLL_MS = 5000;

/** `pollWhileSyncing`: the accounts screen refreshes totals and dates while a sync runs; pickers need not. */
export const useKommoAccounts = ({ pollWhileSyncing = false }: { pollWhileSyncing?: boolean } = {}) =>
  useQuery({
    ...kommoAccountsQueryOptions(),
    refetchInterval: pollWhileSyncing ? (q) => (q.state.data?.some((a) => a.sync_status === 'syncing') ? SYNC_POLL_MS : false) : false,
  });
