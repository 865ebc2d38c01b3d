import { WEBHOOK_DELIVERY_STATE_LABEL, type WebhookDelivery, type WebhookEndpoint } from '@masivo/contract/webhooks';
import { Inbox, RotateCcw } from 'lucide-react';
import toast from 'react-hot-toast';
import { Badge, type BadgeTone } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { TableScroll } from '@/components/ui/data-list';
import { EmptyState } from '@/components/ui/empty-state';
import { Spinner } from '@/components/ui/spinner';
import { TableHead } from '@/components/ui/table-head';
import { errorMessage } from '@/lib/api-client';
import { formatDateTime } from '@/lib/format';
import { useWebhookDeliveries } from '../api/get-webhook-deliveries';
import { useResendDelivery } from '../api/webhook-endpoints';

const COLUMNS = ['Fecha', 'Evento', 'Estado', 'Intentos', 'Respuesta', 'Acciones'] as const;
const TONE: Record<WebhookDelivery['state'], BadgeTone> = { pending: 'yellow', delivered: 'green', failed: 'red' };

/** What the receiver answered last: status code and the first characters, or why nothing came back. */
function Answer({ delivery }: { delivery: WebhookDelivery }) {
  const last = delivery.attempt_log[0];
  if (!last) return <span className="text-gray-500">Sin intentos aún</span>;
  return (
    <div className="space-y-1">
      <div>
        {last.status_code !== null ? <span className="font-mono">HTTP {last.status_code}</span> : <span className="text-red-700">{last.error}</span>}
        <span className="ml-2 text-xs text-gray-500">{last.duration_ms} ms</span>
      </div>
      {last.response_excerpt && <pre className="max-h-24 max-w-md overflow-auto text-xs whitespace-pre-wrap text-gray-600">{last.response_excerpt}</pre>}
      {delivery.attempt_log.length > 1 && (
        <details className="text-xs text-gray-600">
          <summary className="cursor-pointer">Intentos anteriores</summary>
          <ul className="mt-1 space-y-0.5">
            {delivery.attempt_log.slice(1).map((a, i) => (
              <li key={i}>
                {formatDateTime(a.at)}: {a.status_code !== null ? `HTTP ${a.status_code}` : a.error} ({a.duration_ms} ms)
              </li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}

/** «Entregas»: the endpoint's delivery log with each attempt's answer, and «Reenviar». */
export function DeliveriesPanel({ endpoint }: { endpoint: WebhookEndpoint }) {
  const list = useWebhookDeliveries(endpoint.id);
  const resend = useResendDelivery();
  const items = list.data?.pages.flatMap((p) => p.items) ?? [];
  const onResend = (d: WebhookDelivery) =>
    resend.mutate(
      { id: endpoint.id, deliveryId: d.id },
      { onSuccess: () => toast.success('Entrega en cola para reenviarse'), onError: (err) => toast.error(errorMessage(err, 'Error al reenviar')) },
    );
  return (
    <Card className="overflow-hidden">
      <h2 className="border-b px-4 py-3 text-base font-semibold text-gray-900">
        Entregas de <span className="font-mono text-sm break-all">{endpoint.url}</span>
      </h2>
      {list.isLoading ? (
        <Spinner className="py-12" />
      ) : list.isError ? (
        <p role="alert" className="p-6 text-center text-red-600">
          {errorMessage(list.error, 'Error al cargar las entregas')}
        </p>
      ) : items.length === 0 ? (
        <EmptyState icon={<Inbox className="h-12 w-12" />} title="Todavía no hay entregas" hint="Envía un evento de prueba para ver cómo responde tu sistema." />
      ) : (
        <TableScroll label="Entregas">
          <table className="min-w-full divide-y divide-gray-200 text-sm">
            <TableHead columns={COLUMNS} dense />
            <tbody className="divide-y divide-gray-200 bg-white">
              {items.map((d) => (
                <tr key={d.id} data-testid="webhook-delivery" className="align-top">
                  <td className="px-4 py-3 whitespace-nowrap text-gray-700">{formatDateTime(d.created_at)}</td>
                  <td className="px-4 py-3">
                    <code className="text-xs">{d.event_type}</code>
                    <div className="font-mono text-xs text-gray-500">{d.msg_id}</div>
                  </td>
                  <td className="px-4 py-3">
                    <Badge tone={TONE[d.state]}>{WEBHOOK_DELIVERY_STATE_LABEL[d.state]}</Badge>
                    {d.state === 'pending' && d.next_attempt_at && <div className="mt-1 text-xs text-gray-500">Próximo intento: {formatDateTime(d.next_attempt_at)}</div>}
                  </td>
                  <td className="px-4 py-3 text-gray-700">{d.attempts}</td>
                  <td className="px-4 py-3">
                    <Answer delivery={d} />
                  </td>
                  <td className="px-4 py-3">
                    <Button variant="secondary" size="sm" onClick={() => onResend(d)} disabled={resend.isPending || !endpoint.enabled} aria-label={`Reenviar ${d.msg_id}`}>
                      <RotateCcw className="h-4 w-4" aria-hidden="true" />
                      Reenviar
                    </Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      {list.hasNextPage && (
        <div className="border-t p-3 text-center">
          <Button variant="secondary" size="sm" onClick={() => list.fetchNextPage()} disabled={list.isFetchingNextPage}>
            {list.isFetchingNextPage ? 'Cargando…' : 'Cargar más'}
          </Button>
        </div>
      )}
    </Card>
  );
}
