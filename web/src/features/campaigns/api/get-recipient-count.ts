import type { ContactFilterInput } from '@masivo/contract/contact-filter';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/** Spec §9: the recipient count is cached for 30 seconds. */
export const RECIPIENT_COUNT_CACHE_MS = 30_000;

/** The filter as query parameters: tags and customFieldFilters travel as JSON text (spec §7). */
export function recipientCountParams(accountId: number, f: ContactFilterInput) {
  return {
    account_id: accountId,
    searchQuery: (f.searchQuery ?? '').trim() || undefined,
    tags: f.tags?.length ? JSON.stringify(f.tags) : undefined,
    tagOperator: f.tagOperator ?? 'OR',
    customFieldFilters: f.customFieldFilters && Object.keys(f.customFieldFilters).length ? JSON.stringify(f.customFieldFilters) : undefined,
  };
}

export const getRecipientCount = (accountId: number, f: ContactFilterInput) =>
  api.get<{ count: number }>('/contacts/recipient-count', recipientCountParams(accountId, f));

export const getRecipientCountQueryOptions = (accountId: number, f: ContactFilterInput) =>
  queryOptions({
    queryKey: ['contacts', 'recipient-count', recipientCountParams(accountId, f)],
    queryFn: () => getRecipientCount(accountId, f),
    staleTime: RECIPIENT_COUNT_CACHE_MS,
    placeholderData: keepPreviousData,
  });

export const useRecipientCount = (accountId: number | undefined, f: ContactFilterInput) =>
  useQuery({ ...getRecipientCountQueryOptions(accountId ?? 0, f), enabled: !!accountId });
