import type { KommoAccount } from '@masivo/contract/kommo-accounts';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

export const getKommoAccounts = () => api.get<KommoAccount[]>('/kommo/accounts');

export const getKommoAccountsQueryOptions = () => queryOptions({ queryKey: ['kommo-accounts'], queryFn: getKommoAccounts });

export const useKommoAccounts = () => useQuery(getKommoAccountsQueryOptions());
