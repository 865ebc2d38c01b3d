import type { WhatsAppAccount } from '@masivo/contract/whatsapp-accounts';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

export const whatsappAccountsKey = ['whatsapp-accounts'] as const;

export const getWhatsAppAccounts = () => api.get<WhatsAppAccount[]>('/whatsapp-accounts');

export const getWhatsAppAccountsQueryOptions = () =>
  queryOptions({ queryKey: whatsappAccountsKey, queryFn: getWhatsAppAccounts });

export const useWhatsAppAccounts = () => useQuery(getWhatsAppAccountsQueryOptions());
