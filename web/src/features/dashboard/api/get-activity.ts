import type { DashboardActivity } from '@masivo/contract/stats';
import { useQuery } from '@tanstack/react-query';
import { browserTimeZone } from '@/components/charts/chart-format';
import { api } from '@/lib/api-client';

export const ACTIVITY_DAYS = 30;

/** The dashboard's activity: the last 30 days per WhatsApp number and day, in the browser's zone. */
export const getActivity = (days: number, tz: string) => api.get<DashboardActivity>('/dashboard/activity', { days, tz });

export function useActivity(days = ACTIVITY_DAYS) {
  const tz = browserTimeZone();
  return useQuery({
    queryKey: ['dashboard', 'activity', days, tz],
    queryFn: () => getActivity(days, tz),
    staleTime: 60_000,
    retry: false,
  });
}
