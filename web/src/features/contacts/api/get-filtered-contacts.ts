import type { ContactFilter } from '@masivo/contract/contact-filter';
import type { FilteredContactsResponse } from '@masivo/contract/contacts';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { filterToQuery } from '@masivo/contract/contact-filter';
import { api } from '@/lib/api-client';

export interface ContactsPageQuery {
  accountId: number;
  filter: ContactFilter;
  limit: number;
  offset: number;
}

export const getFilteredContacts = ({ accountId, filter, limit, offset }: ContactsPageQuery) =>
  api.get<FilteredContactsResponse>(`/contacts/${accountId}/filtered`, { ...filterToQuery(filter), limit, offset });

/** The previous page stays on screen while the next loads, so the table does not jump. */
export const useFilteredContacts = (q: ContactsPageQuery | null) =>
  useQuery({
    queryKey: ['contacts', q?.accountId, 'filtered', q && filterToQuery(q.filter), q?.limit, q?.offset],
    queryFn: () => getFilteredContacts(q!),
    enabled: q !== null,
    placeholderData: keepPreviousData,
    staleTime: 30_000,
    // An estimated total is replaced by the exact one, which the server keeps computing.
    refetchInterval: (query) => (query.state.data?.total_approximate ? 1_500 : false),
  });
