import type { FrequencyCap, FrequencyCapInput } from '@masivo/contract/preflight';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';

const key = ['settings', 'frequency-cap'] as const;

export const useFrequencyCap = () => useQuery({ queryKey: key, queryFn: () => api.get<FrequencyCap>('/settings/frequency-cap') });

export function useSaveFrequencyCap() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: FrequencyCapInput) => api.put<FrequencyCap>('/settings/frequency-cap', body),
    onSuccess: (data) => {
      qc.setQueryData(key, data);
      void qc.invalidateQueries({ queryKey: ['campaigns', 'preflight'] });
    },
  });
}
