import type { WhatsAppAccountStats } from '@masivo/contract/whatsapp-accounts';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';

export const whatsappStatsKey = ['whatsapp-accounts', 'stats'] as const;

export const getWhatsAppStats = () => api.get<WhatsAppAccountStats>('/whatsapp-accounts/stats');

export const getWhatsAppStatsQueryOptions = () => queryOptions({ queryKey: whatsappStatsKey, queryFn: getWhatsAppStats });

export const useWhatsAppStats = () => useQuery(getWhatsAppStatsQueryOptions());
