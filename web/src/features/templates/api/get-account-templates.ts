import type { Template } from '@masivo/contract/templates';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

export const templatesKey = ['templates'] as const;
export const accountTemplatesKey = (whatsappAccountId: number) => ['templates', 'account', whatsappAccountId] as const;

export const getAccountTemplates = (whatsappAccountId: number) => api.get<Template[]>(`/templates/account/${whatsappAccountId}`);

export const getAccountTemplatesQueryOptions = (whatsappAccountId: number) =>
  queryOptions({ queryKey: accountTemplatesKey(whatsappAccountId), queryFn: () => getAccountTemplates(whatsappAccountId) });

/** Meta's verdict on a pending template arrives by webhook; the list polls until none is pending. */
const PENDING_POLL_MS = 5000;

export const useAccountTemplates = (whatsappAccountId: number | null) =>
  useQuery({
    ...getAccountTemplatesQueryOptions(whatsappAccountId ?? 0),
    enabled: !!whatsappAccountId,
    refetchInterval: (query) => (query.state.data?.some((t) => t.status === 'pending') ? PENDING_POLL_MS : false),
  });
