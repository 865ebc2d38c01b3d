import type { WebhookDeliveryPage } from '@masivo/contract/webhooks';
import { useInfiniteQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';

export const WEBHOOK_DELIVERIES_KEY = ['webhook-deliveries'] as const;

/** An endpoint's delivery log, newest first, polled while it is open (retries happen by themselves). */
export const useWebhookDeliveries = (endpointId: number | null) =>
  useInfiniteQuery({
    queryKey: [...WEBHOOK_DELIVERIES_KEY, endpointId],
    queryFn: ({ pageParam }) =>
      api.get<WebhookDeliveryPage>(`/webhook-endpoints/${endpointId}/deliveries`, { limit: 25, cursor: pageParam ?? undefined }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next_cursor,
    enabled: endpointId !== null,
    refetchInterval: 5_000,
  });
