import type { ContactFilter } from '@masivo/contract/contact-filter';
import type { CustomFieldInfo, FieldValue } from '@masivo/contract/contacts';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '../../lib/api-client';
import { filterToQuery } from '@masivo/contract/contact-filter';

/** Data the filter panel needs, fetched by the panel itself so every screen gets the same. */
export function useAccountTags(accountId: number) {
  return useQuery({
    queryKey: ['contacts', accountId, 'tags'],
    queryFn: () => api.get<string[]>(`/contacts/${accountId}/tags`),
  });
}

export function useAccountCustomFields(accountId: number) {
  return useQuery({
    queryKey: ['contacts', accountId, 'custom-fields'],
    queryFn: () => api.post<CustomFieldInfo[]>('/contacts/custom-fields', { accountId }),
  });
}

/** Values of one field among the contacts the other filters select (for "specific" mode). */
export function useFieldValues(accountId: number, field: string, filter: ContactFilter, enabled: boolean) {
  const query = filterToQuery(filter);
  return useQuery({
    queryKey: ['contacts', accountId, 'field-values', field, query],
    queryFn: () =>
      api.get<{ field: string; values: FieldValue[] }>(
        `/contacts/${accountId}/custom-fields/${encodeURIComponent(field)}/values/filtered`,
        { ...query, excludeFieldName: field },
      ),
    enabled,
    placeholderData: keepPreviousData,
  });
}
