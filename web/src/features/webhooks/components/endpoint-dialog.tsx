import { createWebhookEndpointSchema, WEBHOOK_EVENT_LABEL, WEBHOOK_EVENTS, type WebhookEndpoint, type WebhookEvent } from '@masivo/contract/webhooks';
import { useState, type FormEvent } from 'react';
import { FormActions } from '@/components/ui/form-actions';
import { Input } from '@/components/ui/field';
import { Modal } from '@/components/ui/modal';

export interface EndpointFormValues {
  url: string;
  description: string | null;
  events: WebhookEvent[];
}

/**
 * Create or edit an endpoint: its URL (https), an optional description and the events it
 * receives, checked with the contract's schema before it is sent (the server checks again,
 * and also refuses private addresses).
 */
export function EndpointDialog({
  open,
  endpoint,
  pending,
  onSubmit,
  onClose,
}: {
  open: boolean;
  /** Null: a new endpoint. */
  endpoint: WebhookEndpoint | null;
  pending: boolean;
  onSubmit: (values: EndpointFormValues) => void;
  onClose: () => void;
}) {
  const [url, setUrl] = useState(endpoint?.url ?? '');
  const [description, setDescription] = useState(endpoint?.description ?? '');
  const [events, setEvents] = useState<WebhookEvent[]>((endpoint?.events as WebhookEvent[] | undefined) ?? []);
  const [errors, setErrors] = useState<{ url?: string; events?: string }>({});

  const toggle = (event: WebhookEvent, on: boolean) => setEvents((prev) => (on ? [...prev, event] : prev.filter((e) => e !== event)));

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const parsed = createWebhookEndpointSchema.safeParse({ url, events, description: description.trim() || null });
    if (!parsed.success) {
      const next: typeof errors = {};
      for (const issue of parsed.error.issues) {
        const field = issue.path[0] === 'events' ? 'events' : 'url';
        next[field] ??= issue.message;
      }
      setErrors(next);
      return;
    }
    setErrors({});
    onSubmit({ url: parsed.data.url, description: parsed.data.description ?? null, events: parsed.data.events });
  };

  return (
    <Modal open={open} title={endpoint ? 'Editar webhook' : 'Nuevo webhook'} onClose={onClose} wide>
      <form onSubmit={submit} className="space-y-4" noValidate>
        <Input
          label="URL"
          id="webhook-url"
          value={url}
          onChange={(e) => setUrl(e.target.value)}
          placeholder="https://tu-sistema.example.com/webhooks/masivo"
          hint="Solo https y direcciones públicas"
          error={errors.url}
          required
        />
        <Input label="Descripción (opcional)" id="webhook-description" value={description} onChange={(e) => setDescription(e.target.value)} maxLength={200} />
        <fieldset aria-describedby={errors.events ? 'webhook-events-error' : undefined}>
          <legend className="mb-2 text-sm font-medium text-gray-700">Eventos</legend>
          <div className="grid gap-2 sm:grid-cols-2">
            {WEBHOOK_EVENTS.map((event) => (
              <label key={event} className="flex items-center gap-2 text-sm text-gray-800 max-sm:min-h-11">
                <input type="checkbox" checked={events.includes(event)} onChange={(e) => toggle(event, e.target.checked)} />
                <span>
                  {WEBHOOK_EVENT_LABEL[event]} <code className="text-xs text-gray-500">{event}</code>
                </span>
              </label>
            ))}
          </div>
          {errors.events && (
            <p id="webhook-events-error" className="mt-1 text-sm text-red-600">
              {errors.events}
            </p>
          )}
        </fieldset>
        <FormActions onCancel={onClose} pending={pending} label={endpoint ? 'Guardar' : 'Crear webhook'} pendingLabel="Guardando…" />
      </form>
    </Modal>
  );
}
