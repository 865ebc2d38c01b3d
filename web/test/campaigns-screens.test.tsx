import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ReactNode } from 'react';
import toast, { Toaster } from 'react-hot-toast';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CampaignDetailPage, RETRY_UNKNOWN_CONFIRMATION } from '../src/features/campaigns/components/campaign-detail-page';
import { CampaignsPage } from '../src/features/campaigns/components/campaigns-page';

const campaign = (over: Record<string, unknown>) => ({
  id: 1,
  name: 'Promo',
  description: 'Descripción de prueba',
  status: 'draft',
  message_type: 'template',
  message_content: null,
  template_id: 1,
  template_name: 'promo_verano',
  template_language: 'es',
  kommo_account_id: 1,
  whatsapp_account_id: 1,
  filters: { searchQuery: '', tags: [], tagOperator: 'OR', customFieldFilters: {} },
  total_recipients: 10,
  messages_sent: 0,
  delivered_count: 0,
  read_count: 0,
  failed_count: 0,
  skipped_count: 0,
  unknown_count: 0,
  pending_count: 10,
  pause_reason: null,
  scheduled_at: null,
  started_at: null,
  completed_at: null,
  created_at: '2025-01-01T10:00:00.000Z',
  updated_at: '2025-01-01T10:00:00.000Z',
  ...over,
});

type Handler = (init: RequestInit | undefined) => { status?: number; body: unknown };
let routes: Record<string, Handler>;
const calls: string[] = [];

beforeEach(() => {
  calls.length = 0;
  localStorage.setItem('token', 't');
  // jsdom has no matchMedia; the toaster asks it about reduced motion.
  vi.stubGlobal('matchMedia', (query: string) => ({ matches: false, media: query, addEventListener() {}, removeEventListener() {} }));
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: string, init?: RequestInit) => {
      const key = `${init?.method ?? 'GET'} ${String(input).split('?')[0]}`;
      calls.push(key);
      const handler = routes[key];
      const { status = 200, body } = handler ? handler(init) : { status: 500, body: { error: `sin ruta ${key}` } };
      return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
    }),
  );
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  toast.remove();
});

function renderAt(path: string, element: ReactNode, routePath: string) {
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={qc}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route path={routePath} element={element} />
          <Route path="/campaigns" element={<p>lista de campañas</p>} />
        </Routes>
        <Toaster />
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

describe('CampaignsPage', () => {
  it('shows the spec empty state', async () => {
    routes = { 'GET /api/campaigns': () => ({ body: [] }) };
    renderAt('/campaigns', <CampaignsPage />, '/campaigns');
    expect(await screen.findByText('No tienes campañas creadas')).toBeTruthy();
    expect(screen.getByRole('link', { name: /Nueva Campaña/ }).getAttribute('href')).toBe('/campaigns/new');
  });

  it('starts a draft and pauses a sending campaign from the list, with the spec toasts', async () => {
    routes = {
      'GET /api/campaigns': () => ({
        body: [campaign({ id: 1, name: 'Borrador A' }), campaign({ id: 2, name: 'En curso', status: 'sending', messages_sent: 5 }), campaign({ id: 3, name: 'Hecha', status: 'completed' })],
      }),
      'POST /api/campaigns/1/start': () => ({ body: campaign({ id: 1, status: 'sending' }) }),
      'POST /api/campaigns/2/pause': () => ({ status: 409, body: { error: 'La campaña ya no está enviando' } }),
    };
    renderAt('/campaigns', <CampaignsPage />, '/campaigns');
    const draftRow = (await screen.findByText('Borrador A')).closest('tr')!;
    expect(within(draftRow).getByText('Borrador')).toBeTruthy();
    expect(within(draftRow).getByRole('link', { name: 'Ver' }).getAttribute('href')).toBe('/campaigns/1');
    expect(within(draftRow).queryByRole('button', { name: /Pausar/ })).toBeNull();
    const sendingRow = screen.getByText('En curso').closest('tr')!;
    expect(within(sendingRow).queryByRole('button', { name: /Iniciar/ })).toBeNull();
    const doneRow = screen.getByText('Hecha').closest('tr')!;
    expect(within(doneRow).queryAllByRole('button')).toHaveLength(0);

    await userEvent.click(within(draftRow).getByRole('button', { name: /Iniciar campaña/ }));
    expect(await screen.findByText('Campaña iniciada exitosamente')).toBeTruthy();
    expect(calls).toContain('POST /api/campaigns/1/start');

    await userEvent.click(within(sendingRow).getByRole('button', { name: /Pausar campaña/ }));
    // Spec §8: the server's error when present.
    expect(await screen.findByText('La campaña ya no está enviando')).toBeTruthy();
  });
});

describe('CampaignDetailPage', () => {
  const detail = (c: ReturnType<typeof campaign>) => ({
    'GET /api/campaigns/1': () => ({ body: c }),
    'GET /api/campaigns/1/messages': () => ({ body: { messages: [], total: 0, page: 1, limit: 50 } }),
  });

  it('offers the buttons each status allows', async () => {
    const cases: [string, string[]][] = [
      ['draft', ['Iniciar', 'Eliminar']],
      ['scheduled', ['Iniciar']],
      ['sending', ['Pausar']],
      ['paused', ['Iniciar', 'Eliminar']],
      ['completed', ['Eliminar']],
      ['cancelled', ['Eliminar']],
    ];
    for (const [status, buttons] of cases) {
      routes = detail(campaign({ status }));
      const { unmount } = renderAt('/campaigns/1', <CampaignDetailPage />, '/campaigns/:id');
      await screen.findByRole('heading', { name: 'Promo' });
      const offered = ['Iniciar', 'Pausar', 'Eliminar'].filter((name) => screen.queryByRole('button', { name }));
      expect(offered, status).toEqual(buttons);
      unmount();
    }
  });

  it('asks before deleting and then goes back to /campaigns', async () => {
    routes = { ...detail(campaign({ status: 'completed' })), 'DELETE /api/campaigns/1': () => ({ body: { success: true } }) };
    const confirm = vi.spyOn(window, 'confirm').mockReturnValueOnce(false).mockReturnValueOnce(true);
    renderAt('/campaigns/1', <CampaignDetailPage />, '/campaigns/:id');
    await userEvent.click(await screen.findByRole('button', { name: 'Eliminar' }));
    expect(confirm).toHaveBeenCalledWith('¿Estás seguro de que quieres eliminar esta campaña?');
    expect(calls).not.toContain('DELETE /api/campaigns/1');
    await userEvent.click(screen.getByRole('button', { name: 'Eliminar' }));
    expect(await screen.findByText('lista de campañas')).toBeTruthy();
    expect(await screen.findByText('Campaña eliminada exitosamente')).toBeTruthy();
  });

  it('shows the delivery counts, the pause reason and a retry for failed recipients', async () => {
    routes = {
      ...detail(campaign({ status: 'paused', messages_sent: 6, delivered_count: 5, read_count: 3, failed_count: 2, skipped_count: 1, unknown_count: 1, pause_reason: 'Token inválido' })),
      'POST /api/campaigns/1/retry-failed': () => ({ body: campaign({ status: 'paused' }) }),
    };
    renderAt('/campaigns/1', <CampaignDetailPage />, '/campaigns/:id');
    expect(await screen.findByText('Token inválido')).toBeTruthy();
    expect(screen.getByTestId('count-Entregados').textContent).toBe('5');
    expect(screen.getByTestId('count-Leídos').textContent).toBe('3');
    expect(screen.getByTestId('count-Fallidos').textContent).toBe('2');
    expect(screen.getByTestId('count-Omitidos').textContent).toBe('1');
    expect(screen.getAllByText('100%').length).toBeGreaterThan(0);
    await userEvent.click(screen.getByRole('button', { name: 'Reintentar fallidos' }));
    await waitFor(() => expect(calls).toContain('POST /api/campaigns/1/retry-failed'));
  });

  it('says "Campaña no encontrada" for a missing campaign', async () => {
    routes = { 'GET /api/campaigns/1': () => ({ status: 404, body: { error: 'Campaña no encontrada' } }) };
    renderAt('/campaigns/1', <CampaignDetailPage />, '/campaigns/:id');
    expect(await screen.findByText('Campaña no encontrada')).toBeTruthy();
  });
});

describe('CampaignDetailPage: failed and unknown recipients are retried apart', () => {
  const sent = (c: ReturnType<typeof campaign>) => ({
    'GET /api/campaigns/1': () => ({ body: c }),
    'GET /api/campaigns/1/messages': () => ({ body: { messages: [], total: 0, page: 1, limit: 50 } }),
  });

  it('"Reintentar fallidos" counts failed only; unknown ones have their own button', async () => {
    routes = sent(campaign({ status: 'completed', messages_sent: 8, unknown_count: 2, failed_count: 0 }));
    renderAt('/campaigns/1', <CampaignDetailPage />, '/campaigns/:id');
    expect(await screen.findByRole('button', { name: 'Reintentar desconocidos' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Reintentar fallidos' })).toBeNull();
  });

  it('warns that some may already have the message, and sends the confirmation only when accepted', async () => {
    let body: unknown = null;
    routes = {
      ...sent(campaign({ status: 'paused', messages_sent: 6, failed_count: 1, unknown_count: 2 })),
      'POST /api/campaigns/1/retry-unknown': (init) => {
        body = JSON.parse(String(init?.body));
        return { body: campaign({ status: 'paused' }) };
      },
    };
    const confirm = vi.spyOn(window, 'confirm').mockReturnValueOnce(false).mockReturnValueOnce(true);
    renderAt('/campaigns/1', <CampaignDetailPage />, '/campaigns/:id');
    expect(await screen.findByRole('button', { name: 'Reintentar fallidos' })).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Reintentar desconocidos' }));
    expect(confirm).toHaveBeenCalledWith(RETRY_UNKNOWN_CONFIRMATION);
    expect(RETRY_UNKNOWN_CONFIRMATION).toMatch(/recibido ya/);
    expect(calls).not.toContain('POST /api/campaigns/1/retry-unknown');
    await userEvent.click(screen.getByRole('button', { name: 'Reintentar desconocidos' }));
    await waitFor(() => expect(calls).toContain('POST /api/campaigns/1/retry-unknown'));
    expect(body).toEqual({ confirm: true });
    expect(calls).not.toContain('POST /api/campaigns/1/retry-failed');
  });
});
