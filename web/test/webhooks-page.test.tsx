import { ROLE_PERMISSIONS } from '@masivo/contract/organizations';
import type { WebhookDelivery, WebhookEndpoint } from '@masivo/contract/webhooks';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';
import { SidebarContent } from '../src/app/layout/sidebar';
import { AuthProvider } from '../src/features/auth/auth-context';
import { WebhooksPage } from '../src/features/webhooks/components/webhooks-page';
import { OWNER_ME, renderAt, stubApi } from './utils';

const endpoint = (over: Partial<WebhookEndpoint> = {}): WebhookEndpoint => ({
  id: 5,
  url: 'https://crm.example.com/hooks/masivo',
  description: 'CRM',
  events: ['campaign.completed', 'message.status'],
  enabled: true,
  disabled_reason: null,
  disabled_at: null,
  failing_since: null,
  previous_secret_expires_at: null,
  created_at: '2026-03-01T10:00:00.000Z',
  updated_at: '2026-03-01T10:00:00.000Z',
  ...over,
});

const delivery = (over: Partial<WebhookDelivery> = {}): WebhookDelivery => ({
  id: '31',
  msg_id: 'msg_abc',
  event_type: 'campaign.completed',
  state: 'failed',
  attempts: 8,
  next_attempt_at: null,
  last_status_code: 500,
  last_error: 'El receptor respondió 500',
  created_at: '2026-03-01T10:00:00.000Z',
  finished_at: '2026-03-02T10:00:00.000Z',
  body: '{"type":"campaign.completed"}',
  attempt_log: [
    { at: '2026-03-02T10:00:00.000Z', status_code: 500, duration_ms: 42, response_excerpt: 'Internal error del CRM', error: null },
    { at: '2026-03-01T10:00:05.000Z', status_code: null, duration_ms: 10_000, response_excerpt: null, error: 'El receptor no respondió en 10 s' },
  ],
  ...over,
});

/** «Webhooks»: endpoints with their state and reason, the delivery log, test and resend, create with the secret shown once, rotate. */
describe('WebhooksPage', () => {
  it('shows endpoints, why one was disabled, and the delivery log with attempts and answers; resends and tests', async () => {
    const api = stubApi({
      'GET /api/webhook-endpoints': () => ({
        body: [endpoint(), endpoint({ id: 6, url: 'https://old.example.com/hook', enabled: false, disabled_reason: 'El receptor respondió 410 (Gone): el webhook se desactivó' })],
      }),
      'GET /api/webhook-endpoints/5/deliveries': () => ({ body: { items: [delivery()], next_cursor: null } }),
      'POST /api/webhook-endpoints/5/deliveries/31/resend': () => ({ status: 202, body: delivery({ state: 'pending' }) }),
      'POST /api/webhook-endpoints/5/test': () => ({ status: 202, body: delivery({ id: '32', event_type: 'webhook.test', state: 'pending', attempts: 0, attempt_log: [] }) }),
      'PATCH /api/webhook-endpoints/6': () => ({ body: endpoint({ id: 6, url: 'https://old.example.com/hook' }) }),
    });
    renderAt('/webhooks', <WebhooksPage />);
    expect(await screen.findAllByTestId('webhook-endpoint')).toHaveLength(2);
    expect(screen.getByTestId('webhook-disabled-reason').textContent).toContain('410');
    expect(screen.getAllByText(/Campaña completada · Estados de mensajes/)).toHaveLength(2);

    const row = await screen.findByTestId('webhook-delivery');
    expect(within(row).getByText('Fallido')).toBeTruthy();
    expect(within(row).getByText('8')).toBeTruthy();
    expect(within(row).getByText('HTTP 500')).toBeTruthy();
    expect(within(row).getByText('Internal error del CRM')).toBeTruthy();
    expect(within(row).getByText(/no respondió en 10 s/)).toBeTruthy();

    fireEvent.click(within(row).getByRole('button', { name: 'Reenviar msg_abc' }));
    await waitFor(() => expect(api.calls()).toContain('POST /api/webhook-endpoints/5/deliveries/31/resend'));

    const first = screen.getAllByTestId('webhook-endpoint')[0]!;
    fireEvent.click(within(first).getByRole('button', { name: /Enviar evento de prueba/ }));
    await waitFor(() => expect(api.calls()).toContain('POST /api/webhook-endpoints/5/test'));

    const disabled = screen.getAllByTestId('webhook-endpoint')[1]!;
    fireEvent.click(within(disabled).getByRole('button', { name: 'Activar de nuevo' }));
    await waitFor(() => expect(api.bodies('PATCH /api/webhook-endpoints/6')).toEqual([{ enabled: true }]));
  });

  it('creates an endpoint with its events and shows the secret once; rotation shows the new one', async () => {
    const secret = 'whsec_' + 'A'.repeat(43) + '=';
    const api = stubApi({
      'GET /api/webhook-endpoints': () => ({ body: [] }),
      'POST /api/webhook-endpoints': () => {
        api.routes['GET /api/webhook-endpoints'] = () => ({ body: [endpoint({ id: 9, events: ['reply.received'] })] });
        return { status: 201, body: { ...endpoint({ id: 9, events: ['reply.received'] }), secret } };
      },
      'GET /api/webhook-endpoints/9/deliveries': () => ({ body: { items: [], next_cursor: null } }),
      'POST /api/webhook-endpoints/9/rotate-secret': () => ({ body: { ...endpoint({ id: 9 }), secret: secret.replace('A', 'B') } }),
    });
    renderAt('/webhooks', <WebhooksPage />);
    expect(await screen.findByText('No hay webhooks')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: /Nuevo webhook/ }));
    const dialog = await screen.findByRole('dialog', { name: 'Nuevo webhook' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Crear webhook' }));
    expect(await within(dialog).findByText('Elige al menos un evento')).toBeTruthy();
    fireEvent.change(within(dialog).getByLabelText(/URL/), { target: { value: 'https://crm.example.com/hooks/masivo' } });
    fireEvent.click(within(dialog).getByLabelText(/Respuesta recibida/));
    fireEvent.click(within(dialog).getByRole('button', { name: 'Crear webhook' }));
    await waitFor(() => expect(api.bodies('POST /api/webhook-endpoints')).toEqual([{ url: 'https://crm.example.com/hooks/masivo', events: ['reply.received'], description: null }]));
    expect((await screen.findByTestId('webhook-secret')).textContent).toBe(secret);
    expect(screen.getByText(/no se volverá a mostrar/)).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Listo, lo guardé' }));
    await waitFor(() => expect(screen.queryByTestId('webhook-secret')).toBeNull());

    fireEvent.click(await screen.findByRole('button', { name: /Rotar secreto/ }));
    const confirm = await screen.findByRole('dialog', { name: 'Rotar secreto' });
    fireEvent.click(within(confirm).getByRole('button', { name: 'Rotar secreto' }));
    expect((await screen.findByTestId('webhook-secret')).textContent).toBe(secret.replace('A', 'B'));
    expect(screen.getByText(/sigue firmando durante 24 horas/)).toBeTruthy();
  });

  it('the sidebar shows «Webhooks» only to members with webhooks.manage', async () => {
    const show = async (role: 'owner' | 'editor') => {
      stubApi({ 'GET /api/me': () => ({ body: { ...OWNER_ME, role, permissions: [...ROLE_PERMISSIONS[role]] } }) });
      const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
      const view = render(
        <QueryClientProvider client={qc}>
          <MemoryRouter>
            <AuthProvider>
              <SidebarContent />
            </AuthProvider>
          </MemoryRouter>
        </QueryClientProvider>,
      );
      await waitFor(() => expect(qc.getQueryData(['me'])).toBeTruthy());
      const found = !!view.queryByRole('link', { name: /Webhooks/ });
      view.unmount();
      return found;
    };
    expect(await show('owner')).toBe(true);
    expect(await show('editor')).toBe(false);
  });
});
