import type {
  CreateWebhookEndpointInput,
  UpdateWebhookEndpointInput,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
} from '@masivo/contract/webhooks';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { WEBHOOK_DELIVERIES_KEY } from './get-webhook-deliveries';

export const WEBHOOK_ENDPOINTS_KEY = ['webhook-endpoints'] as const;

/** The organisation's endpoints; refreshed now and then, since the console may disable one by itself. */
export const useWebhookEndpoints = () =>
  useQuery({ queryKey: WEBHOOK_ENDPOINTS_KEY, queryFn: () => api.get<WebhookEndpoint[]>('/webhook-endpoints'), refetchInterval: 30_000 });

function useInvalidating<A, R>(fn: (args: A) => Promise<R>) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: WEBHOOK_ENDPOINTS_KEY });
      void qc.invalidateQueries({ queryKey: WEBHOOK_DELIVERIES_KEY });
    },
  });
}

/** The answer carries the secret: the only time it is shown. */
export const useCreateWebhookEndpoint = () =>
  useInvalidating((input: CreateWebhookEndpointInput) => api.post<WebhookEndpointWithSecret>('/webhook-endpoints', input));

export const useUpdateWebhookEndpoint = () =>
  useInvalidating(({ id, input }: { id: number; input: UpdateWebhookEndpointInput }) => api.patch<WebhookEndpoint>(`/webhook-endpoints/${id}`, input));

export const useDeleteWebhookEndpoint = () => useInvalidating((id: number) => api.delete<{ success: true }>(`/webhook-endpoints/${id}`));

/** A new secret, shown once; the previous one keeps signing for 24 h. */
export const useRotateWebhookSecret = () =>
  useInvalidating((id: number) => api.post<WebhookEndpointWithSecret>(`/webhook-endpoints/${id}/rotate-secret`));

export const useSendTestEvent = () => useInvalidating((id: number) => api.post<WebhookDelivery>(`/webhook-endpoints/${id}/test`));

export const useResendDelivery = () =>
  useInvalidating(({ id, deliveryId }: { id: number; deliveryId: string }) =>
    api.post<WebhookDelivery>(`/webhook-endpoints/${id}/deliveries/${deliveryId}/resend`),
  );
