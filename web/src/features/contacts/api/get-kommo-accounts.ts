import type { KommoAccount } from '@masivo/contract/kommo-accounts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

export const useKommoAccounts = () => useQuery({ queryKey: ['kommo-accounts'], queryFn: () => api.get<KommoAccount[]>('/kommo/accounts') });
