import type { WhatsAppAccount } from '@masivo/contract/whatsapp-accounts';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../lib/api-client';

export const whatsappAccountsKeys = { all: ['whatsapp-accounts'] as const };

export const getWhatsAppAccounts = () => api.get<WhatsAppAccount[]>('/whatsapp-accounts');

export const whatsappAccountsQueryOptions = () => queryOptions({ queryKey: whatsappAccountsKeys.all, queryFn: getWhatsAppAccounts });

export const useWhatsAppAccounts = () => useQuery(whatsappAccountsQueryOptions());
