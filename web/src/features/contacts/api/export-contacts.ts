import type { ContactFilter } from '@masivo/contract/contact-filter';
import { useMutation } from '@tanstack/react-query';
import { filterToBody } from '@masivo/contract/contact-filter';
import { request } from '@/lib/api-client';
import { saveResponseAsFile } from '@/lib/download';

/** Downloads the server's CSV of the filtered contacts under the name the server gives it. */
export async function exportContacts(accountId: number, filter: ContactFilter): Promise<void> {
  const res = await request('POST', `/contacts/${accountId}/export`, { ...filterToBody(filter), format: 'csv' });
  await saveResponseAsFile(res, 'contactos.csv');
}

export const useExportContacts = () =>
  useMutation({ mutationFn: ({ accountId, filter }: { accountId: number; filter: ContactFilter }) => exportContacts(accountId, filter) });
