import type { BlacklistEntry } from '@masivo/contract/blacklist';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';

/** The whole list, or the entries matching `query` (phone in any format, or reason). */
export const getBlacklist = (accountId: number, query: string) =>
  query.trim()
    ? api.get<BlacklistEntry[]>(`/blacklist/${accountId}/search`, { query: query.trim() })
    : api.get<BlacklistEntry[]>(`/blacklist/${accountId}`);

export const useBlacklist = (accountId: number | null, query: string) =>
  useQuery({
    queryKey: ['blacklist', accountId, query.trim()],
    queryFn: () => getBlacklist(accountId!, query),
    enabled: accountId !== null,
    placeholderData: keepPreviousData,
  });
