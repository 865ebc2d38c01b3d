import { WEBHOOK_EVENT_LABEL, type WebhookEndpoint, type WebhookEvent } from '@masivo/contract/webhooks';
import { KeyRound, Pencil, Plus, Send, Trash2, Webhook } from 'lucide-react';
import { useState } from 'react';
import toast from 'react-hot-toast';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { EmptyState } from '@/components/ui/empty-state';
import { PageHeader } from '@/components/ui/page-header';
import { Spinner } from '@/components/ui/spinner';
import { errorMessage } from '@/lib/api-client';
import { formatDateTime } from '@/lib/format';
import {
  useCreateWebhookEndpoint,
  useDeleteWebhookEndpoint,
  useRotateWebhookSecret,
  useSendTestEvent,
  useUpdateWebhookEndpoint,
  useWebhookEndpoints,
} from '../api/webhook-endpoints';
import { DeliveriesPanel } from './deliveries-panel';
import { EndpointDialog, type EndpointFormValues } from './endpoint-dialog';
import { SecretDialog } from './secret-dialog';

type Editing = { endpoint: WebhookEndpoint | null } | null;

/**
 * «Webhooks»: the organisation's endpoints (URL, events, state and why the console disabled
 * one), each with its delivery log; create, edit, rotate the secret (shown once), send a test
 * event, enable again and delete.
 */
export function WebhooksPage() {
  const list = useWebhookEndpoints();
  const create = useCreateWebhookEndpoint();
  const update = useUpdateWebhookEndpoint();
  const remove = useDeleteWebhookEndpoint();
  const rotate = useRotateWebhookSecret();
  const test = useSendTestEvent();
  const [editing, setEditing] = useState<Editing>(null);
  const [secret, setSecret] = useState<{ value: string; rotated: boolean } | null>(null);
  const [deleting, setDeleting] = useState<WebhookEndpoint | null>(null);
  const [rotating, setRotating] = useState<WebhookEndpoint | null>(null);
  const [selected, setSelected] = useState<number | null>(null);
  const endpoints = list.data ?? [];
  const shown = endpoints.find((e) => e.id === selected) ?? endpoints[0] ?? null;

  const onSave = (values: EndpointFormValues) => {
    const target = editing?.endpoint;
    if (target) {
      update.mutate(
        { id: target.id, input: values },
        { onSuccess: () => (setEditing(null), toast.success('Webhook actualizado')), onError: (err) => toast.error(errorMessage(err, 'Error al guardar el webhook')) },
      );
      return;
    }
    create.mutate(values, {
      onSuccess: (created) => {
        setEditing(null);
        setSelected(created.id);
        setSecret({ value: created.secret, rotated: false });
      },
      onError: (err) => toast.error(errorMessage(err, 'Error al crear el webhook')),
    });
  };

  const onEnable = (e: WebhookEndpoint) =>
    update.mutate({ id: e.id, input: { enabled: true } }, { onSuccess: () => toast.success('Webhook activado'), onError: (err) => toast.error(errorMessage(err, 'Error al activar el webhook')) });

  const onTest = (e: WebhookEndpoint) => {
    setSelected(e.id);
    test.mutate(e.id, { onSuccess: () => toast.success('Evento de prueba en camino'), onError: (err) => toast.error(errorMessage(err, 'Error al enviar el evento de prueba')) });
  };

  return (
    <div className="space-y-4">
      <PageHeader
        title="Webhooks"
        description="Avisa a tus sistemas cuando una campaña cambia de estado, llegan estados de mensajes o respuestas, o un contacto se da de baja. Cada envío va firmado (Standard Webhooks)."
        actions={
          <Button onClick={() => setEditing({ endpoint: null })}>
            <Plus className="h-4 w-4" aria-hidden="true" />
            Nuevo webhook
          </Button>
        }
      />
      <Card className="overflow-hidden">
        {list.isLoading ? (
          <Spinner className="py-12" />
        ) : list.isError ? (
          <p role="alert" className="p-6 text-center text-red-600">
            {errorMessage(list.error, 'Error al cargar los webhooks')}
          </p>
        ) : endpoints.length === 0 ? (
          <EmptyState icon={<Webhook className="h-12 w-12" />} title="No hay webhooks" hint="Crea uno para recibir los eventos de la organización en tu sistema." />
        ) : (
          <ul aria-label="Webhooks" className="divide-y divide-gray-200">
            {endpoints.map((e) => (
              <li key={e.id} data-testid="webhook-endpoint" className="space-y-2 p-4">
                <div className="flex flex-wrap items-center gap-2">
                  <span className="font-mono text-sm break-all text-gray-900">{e.url}</span>
                  {e.enabled ? <Badge tone="green">Activo</Badge> : <Badge tone="red">Desactivado</Badge>}
                  {e.enabled && e.failing_since && <Badge tone="yellow">Fallando desde {formatDateTime(e.failing_since)}</Badge>}
                </div>
                {e.description && <p className="text-sm text-gray-600">{e.description}</p>}
                {!e.enabled && (
                  <p role="status" data-testid="webhook-disabled-reason" className="text-sm text-red-700">
                    {e.disabled_reason ?? 'Desactivado por un miembro'}
                  </p>
                )}
                <p className="text-xs text-gray-600">Eventos: {e.events.map((ev) => WEBHOOK_EVENT_LABEL[ev as WebhookEvent] ?? ev).join(' · ')}</p>
                {e.previous_secret_expires_at && (
                  <p className="text-xs text-gray-600">El secreto anterior firma también hasta {formatDateTime(e.previous_secret_expires_at)}.</p>
                )}
                <div className="flex flex-wrap gap-2">
                  <Button variant="secondary" size="sm" onClick={() => setSelected(e.id)} aria-pressed={shown?.id === e.id}>
                    Ver entregas
                  </Button>
                  <Button variant="secondary" size="sm" onClick={() => onTest(e)} disabled={!e.enabled || test.isPending}>
                    <Send className="h-4 w-4" aria-hidden="true" />
                    Enviar evento de prueba
                  </Button>
                  {!e.enabled && (
                    <Button size="sm" onClick={() => onEnable(e)} disabled={update.isPending}>
                      Activar de nuevo
                    </Button>
                  )}
                  <Button variant="secondary" size="sm" onClick={() => setEditing({ endpoint: e })} aria-label={`Editar ${e.url}`}>
                    <Pencil className="h-4 w-4" aria-hidden="true" />
                    Editar
                  </Button>
                  <Button variant="secondary" size="sm" onClick={() => setRotating(e)}>
                    <KeyRound className="h-4 w-4" aria-hidden="true" />
                    Rotar secreto
                  </Button>
                  <Button variant="danger" size="sm" onClick={() => setDeleting(e)} aria-label={`Eliminar ${e.url}`}>
                    <Trash2 className="h-4 w-4" aria-hidden="true" />
                    Eliminar
                  </Button>
                </div>
              </li>
            ))}
          </ul>
        )}
      </Card>
      {shown && <DeliveriesPanel endpoint={shown} />}
      {editing && (
        <EndpointDialog
          open
          endpoint={editing.endpoint}
          pending={create.isPending || update.isPending}
          onSubmit={onSave}
          onClose={() => setEditing(null)}
        />
      )}
      <SecretDialog secret={secret?.value ?? null} rotated={secret?.rotated ?? false} onClose={() => setSecret(null)} />
      <ConfirmDialog
        open={rotating !== null}
        title="Rotar secreto"
        message="Se generará un secreto nuevo, que verás una sola vez. El actual seguirá firmando durante 24 horas."
        confirmLabel="Rotar secreto"
        pendingLabel="Rotando…"
        pending={rotate.isPending}
        onCancel={() => setRotating(null)}
        onConfirm={() =>
          rotating &&
          rotate.mutate(rotating.id, {
            onSuccess: (r) => (setRotating(null), setSecret({ value: r.secret, rotated: true })),
            onError: (err) => toast.error(errorMessage(err, 'Error al rotar el secreto')),
          })
        }
      />
      <ConfirmDialog
        open={deleting !== null}
        title="Eliminar webhook"
        message={`Se eliminará ${deleting?.url ?? ''} con su registro de entregas. Los eventos pendientes no se enviarán.`}
        confirmLabel="Eliminar"
        pendingLabel="Eliminando…"
        variant="danger"
        pending={remove.isPending}
        onCancel={() => setDeleting(null)}
        onConfirm={() =>
          deleting &&
          remove.mutate(deleting.id, {
            onSuccess: () => (setDeleting(null), toast.success('Webhook eliminado')),
            onError: (err) => toast.error(errorMessage(err, 'Error al eliminar el webhook')),
          })
        }
      />
    </div>
  );
}
