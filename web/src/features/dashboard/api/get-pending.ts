import type { DashboardPending } from '@masivo/contract/stats';
import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';

/** "Mensajes Pendientes": the sending campaigns' remaining messages plus the deferred ones waiting for their retry. */
export const getPending = () => api.get<DashboardPending>('/dashboard/pending');

export const usePending = () => useQuery({ queryKey: ['dashboard', 'pending'], queryFn: getPending, staleTime: 0, retry: false });
