import type { RecipientGroup, RecipientStatus } from '@masivo/contract/campaigns';
import { useMutation } from '@tanstack/react-query';
import { request } from '@/lib/api-client';
import { saveResponseAsFile } from '@/lib/download';

/** What the recipients table currently filters: the export takes the same query. */
export interface ResultsFilter {
  status?: RecipientStatus;
  group?: RecipientGroup;
  hours?: number;
  button?: string;
}

/** Downloads the campaign's results CSV (streamed by the server) under the name it gives. */
export async function exportResults(id: number, filter: ResultsFilter): Promise<void> {
  const res = await request('GET', `/campaigns/${id}/results.csv`, undefined, { ...filter });
  await saveResponseAsFile(res, 'resultados.csv');
}

export const useExportResults = () =>
  useMutation({ mutationFn: ({ id, filter }: { id: number; filter: ResultsFilter }) => exportResults(id, filter) });
