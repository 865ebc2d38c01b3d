import type { RecipientGroup, RecipientStatus } from '@masivo/contract/campaigns';
import type { CsvFormat } from '@masivo/contract/common';
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

/** Downloads the campaign's results CSV (streamed by the server) in `format`, under the name it gives. */
export async function exportResults(id: number, filter: ResultsFilter, format: CsvFormat = 'csv'): Promise<void> {
  // The plain format is the server's default, so its address stays the one it always was.
  const res = await request('GET', `/campaigns/${id}/results.csv`, undefined, { ...filter, format: format === 'csv' ? undefined : format });
  await saveResponseAsFile(res, 'resultados.csv');
}

export const useExportResults = () =>
  useMutation({ mutationFn: ({ id, filter, format }: { id: number; filter: ResultsFilter; format?: CsvFormat }) => exportResults(id, filter, format) });
