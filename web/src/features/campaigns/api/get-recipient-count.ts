import type { ContactFilter } from '@masivo/contract/contact-filter';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { filterToQuery } from '@masivo/contract/contact-filter';
import { api } from '@/lib/api-client';

/** Spec §9: the recipient count is cached for 30 seconds. */
export const RECIPIENT_COUNT_CACHE_MS = 30_000;
const APPROXIMATE_RETRY_MS = 1_500;

/** The count's query: the account plus the filter as the API reads it (JSON text, spec §7). */
export const recipientCountParams = (accountId: number, f: ContactFilter) => ({ account_id: accountId, ...filterToQuery(f) });

export const getRecipientCount = (accountId: number, f: ContactFilter) =>
  api.get<{ count: number; approximate?: boolean }>('/contacts/recipient-count', recipientCountParams(accountId, f));

export const getRecipientCountQueryOptions = (accountId: number, f: ContactFilter) =>
  queryOptions({
    queryKey: ['contacts', 'recipient-count', recipientCountParams(accountId, f)],
    queryFn: () => getRecipientCount(accountId, f),
    staleTime: RECIPIENT_COUNT_CACHE_MS,
    placeholderData: keepPreviousData,
    // An estimate (a large account, a first count after its data changed) is replaced by the
    // exact figure, which the server keeps computing and caches: ask again shortly.
    refetchInterval: (query) => (query.state.data?.approximate ? APPROXIMATE_RETRY_MS : false),
  });

export const useRecipientCount = (accountId: number | undefined, f: ContactFilter) =>
  useQuery({ ...getRecipientCountQueryOptions(accountId ?? 0, f), enabled: !!accountId });
