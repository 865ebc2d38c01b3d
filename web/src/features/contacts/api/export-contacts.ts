import type { ContactFilter } from '@masivo/contract/contact-filter';
import { useMutation } from '@tanstack/react-query';
import { filterToBody } from '@masivo/contract/contact-filter';
import { request } from '@/lib/api-client';

/** Downloads the server's CSV of the filtered contacts under the name the server gives it. */
export async function exportContacts(accountId: number, filter: ContactFilter): Promise<void> {
  const res = await request('POST', `/contacts/${accountId}/export`, { ...filterToBody(filter), format: 'csv' });
  const blob = await res.blob();
  const name = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? 'contactos.csv';
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export const useExportContacts = () =>
  useMutation({ mutationFn: ({ accountId, filter }: { accountId: number; filter: ContactFilter }) => exportContacts(accountId, filter) });
