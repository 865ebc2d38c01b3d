import type { AvailableVariable } from '@masivo/contract/variables';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';

/** Built-in contact fields plus the Kommo account's custom fields (the create dialog's chips). */
export const getAvailableVariables = (kommoAccountId: number) => api.get<AvailableVariable[]>(`/variables/${kommoAccountId}/available`);

export const getAvailableVariablesQueryOptions = (kommoAccountId: number) =>
  queryOptions({ queryKey: ['variables', 'available', kommoAccountId], queryFn: () => getAvailableVariables(kommoAccountId) });

export const useAvailableVariables = (kommoAccountId: number | null) =>
  useQuery({ ...getAvailableVariablesQueryOptions(kommoAccountId ?? 0), enabled: !!kommoAccountId });
