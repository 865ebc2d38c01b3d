import type { CsvFormat } from '@masivo/contract/common';
import type { ContactFilter } from '@masivo/contract/contact-filter';
import { useMutation } from '@tanstack/react-query';
import { filterToBody } from '@masivo/contract/contact-filter';
import { request } from '@/lib/api-client';
import { saveResponseAsFile } from '@/lib/download';

/** Downloads the server's CSV of the filtered contacts, in `format`, under the name the server gives it. */
export async function exportContacts(accountId: number, filter: ContactFilter, format: CsvFormat = 'csv'): Promise<void> {
  const res = await request('POST', `/contacts/${accountId}/export`, { ...filterToBody(filter), format });
  await saveResponseAsFile(res, 'contactos.csv');
}

export const useExportContacts = () =>
  useMutation({
    mutationFn: ({ accountId, filter, format }: { accountId: number; filter: ContactFilter; format?: CsvFormat }) => exportContacts(accountId, filter, format),
  });
