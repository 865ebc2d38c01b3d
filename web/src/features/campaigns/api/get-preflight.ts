import type { Preflight, PreflightRequest } from '@masivo/contract/preflight';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';

/** The pre-flight of the campaign being built (the create payload, name optional). */
export const usePreflightDraft = (body: PreflightRequest | null) =>
  useQuery({
    queryKey: ['campaigns', 'preflight', 'draft', body],
    queryFn: () => api.post<Preflight>('/campaigns/preflight', body),
    enabled: body !== null,
    placeholderData: keepPreviousData,
    staleTime: 15_000,
    retry: false,
  });

/**
 * The pre-flight of a saved campaign, shown on its detail screen before the first start;
 * `startNow`: estimated from now even when it is scheduled later (the send confirmation).
 */
export const useCampaignPreflight = (id: number, enabled: boolean, startNow = false) =>
  useQuery({
    queryKey: ['campaigns', 'preflight', id, startNow ? 'now' : 'scheduled'],
    queryFn: () => api.get<Preflight>(`/campaigns/${id}/preflight`, startNow ? { start: 'now' } : undefined),
    enabled,
    staleTime: 15_000,
    retry: false,
  });
