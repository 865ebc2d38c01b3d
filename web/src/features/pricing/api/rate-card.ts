import type { RateCard, RateCardLineError } from '@masivo/contract/pricing';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, request } from '@/lib/api-client';
import { saveResponseAsFile } from '@/lib/download';

export const useRateCard = () => useQuery({ queryKey: ['pricing'], queryFn: () => api.get<RateCard>('/pricing') });

/** Downloads the tenant's card as CSV under the name the server gives it. */
export async function downloadRateCardCsv(): Promise<void> {
  const res = await request('GET', '/pricing/csv');
  await saveResponseAsFile(res, 'tarifas.csv');
}

/** The per-line errors of a refused upload, if that is what `err` is. */
export function uploadLineErrors(err: unknown): RateCardLineError[] {
  if (!(err instanceof ApiError)) return [];
  const errors = (err.body as { errors?: unknown } | undefined)?.errors;
  return Array.isArray(errors) ? (errors as RateCardLineError[]) : [];
}

export function useUploadRateCard() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (csv: string) => api.put<RateCard>('/pricing/csv', { csv }),
    onSuccess: (card) => qc.setQueryData(['pricing'], card),
  });
}

export function useResetRateCard() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => api.delete<{ success: true }>('/pricing'),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['pricing'] }),
  });
}
