import type { ActivityPage, ActivityQueryInput } from '@masivo/contract/activity';
import type { CsvFormat } from '@masivo/contract/common';
import type { Member } from '@masivo/contract/organizations';
import { useInfiniteQuery, useMutation, useQuery } from '@tanstack/react-query';
import { api, request } from '@/lib/api-client';
import { saveResponseAsFile } from '@/lib/download';

/** The page's filters, as the query string carries them (empty ones left out). */
export type ActivityFilter = Pick<ActivityQueryInput, 'action' | 'target_type' | 'target_id' | 'from' | 'to'> & { user_id?: number };

const PAGE = 50;

/** The log, newest first, one page at a time («Cargar más» asks for the next). */
export const useActivity = (filter: ActivityFilter) =>
  useInfiniteQuery({
    queryKey: ['activity', filter],
    queryFn: ({ pageParam }) => api.get<ActivityPage>('/activity', { ...filter, limit: PAGE, cursor: pageParam ?? undefined }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next_cursor,
  });

/** The members, for the «Miembro» filter. */
export const useMembers = () => useQuery({ queryKey: ['organization', 'members'], queryFn: () => api.get<Member[]>('/organization/members') });

/** Downloads the filtered log as CSV (streamed by the server, which records the export). */
export async function exportActivity(filter: ActivityFilter, format: CsvFormat): Promise<void> {
  const res = await request('GET', '/activity.csv', undefined, { ...filter, format: format === 'csv' ? undefined : format });
  await saveResponseAsFile(res, 'actividad.csv');
}

export const useExportActivity = () =>
  useMutation({ mutationFn: ({ filter, format }: { filter: ActivityFilter; format: CsvFormat }) => exportActivity(filter, format) });
