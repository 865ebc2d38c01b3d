import type { Campaign } from '@masivo/contract/campaigns';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { CampaignDetailPage, RETRY_UNKNOWN_CONFIRMATION } from '../src/features/campaigns/components/campaign-detail-page';
import { CampaignsPage } from '../src/features/campaigns/components/campaigns-page';
import { preflight } from './preflight-fixture';
import { campaign, renderAt, stubApi, type ApiStub } from './utils';

let api: ApiStub;
beforeEach(() => {
  api = stubApi();
});
const calls = () => api.calls();

describe('CampaignsPage', () => {
  it('shows the spec empty state', async () => {
    api.routes = { 'GET /api/campaigns': () => ({ body: [] }) };
    renderAt('/campaigns', <CampaignsPage />, '/campaigns');
    expect(await screen.findByText('No tienes campañas creadas')).toBeTruthy();
    expect(screen.getByRole('link', { name: /Nueva Campaña/ }).getAttribute('href')).toBe('/campaigns/new');
  });

  it('starts a draft and pauses a sending campaign from the list, with the spec toasts', async () => {
    api.routes = {
      'GET /api/campaigns': () => ({
        body: [campaign({ id: 1, name: 'Borrador A' }), campaign({ id: 2, name: 'En curso', status: 'sending', messages_sent: 5 }), campaign({ id: 3, name: 'Hecha', status: 'completed' })],
      }),
      'POST /api/campaigns/1/start': () => ({ body: campaign({ id: 1, status: 'sending' }) }),
      'GET /api/campaigns/1/preflight': () => ({ body: preflight(7) }),
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
    // One tap never sends: the confirmation says to how many people first.
    expect(calls()).not.toContain('POST /api/campaigns/1/start');
    await userEvent.click(await screen.findByRole('button', { name: 'Enviar a 7 personas' }));
    expect(await screen.findByText('Campaña iniciada exitosamente')).toBeTruthy();
    expect(calls()).toContain('POST /api/campaigns/1/start');

    await userEvent.click(within(sendingRow).getByRole('button', { name: /Pausar campaña/ }));
    // Spec §8: the server's error when present.
    expect(await screen.findByText('La campaña ya no está enviando')).toBeTruthy();
  });
});

describe('CampaignDetailPage', () => {
  const detail = (c: Campaign) => ({
    'GET /api/campaigns/1': () => ({ body: c }),
    'GET /api/campaigns/1/messages': () => ({ body: { messages: [], total: 0, page: 1, limit: 50 } }),
  });

  it('offers the buttons each status allows', async () => {
    const cases: [Campaign['status'], string[]][] = [
      ['draft', ['Iniciar', 'Eliminar']],
      ['scheduled', ['Iniciar']],
      ['sending', ['Pausar']],
      ['paused', ['Iniciar', 'Eliminar']],
      ['completed', ['Eliminar']],
      ['cancelled', ['Eliminar']],
    ];
    for (const [status, buttons] of cases) {
      api.routes = detail(campaign({ status }));
      const { unmount } = renderAt('/campaigns/1', <CampaignDetailPage />, '/campaigns/:id');
      await screen.findByRole('heading', { name: 'Promo' });
      const offered = ['Iniciar', 'Pausar', 'Eliminar'].filter((name) => screen.queryByRole('button', { name }));
      expect(offered, status).toEqual(buttons);
      unmount();
    }
  });

  it('asks before deleting and then goes back to /campaigns', async () => {
    api.routes = { ...detail(campaign({ status: 'completed' })), 'DELETE /api/campaigns/1': () => ({ body: { success: true } }) };
    const confirm = vi.spyOn(window, 'confirm').mockReturnValueOnce(false).mockReturnValueOnce(true);
    renderAt('/campaigns/1', <CampaignDetailPage />, '/campaigns/:id');
    await userEvent.click(await screen.findByRole('button', { name: 'Eliminar' }));
    expect(confirm).toHaveBeenCalledWith('¿Estás seguro de que quieres eliminar esta campaña?');
    expect(calls()).not.toContain('DELETE /api/campaigns/1');
    await userEvent.click(screen.getByRole('button', { name: 'Eliminar' }));
    expect(await screen.findByText('lista de campañas')).toBeTruthy();
    expect(await screen.findByText('Campaña eliminada exitosamente')).toBeTruthy();
  });

  it('shows the delivery counts, the pause reason and a retry for failed recipients', async () => {
    api.routes = {
      ...detail(campaign({ status: 'paused', messages_sent: 6, delivered_count: 5, read_count: 3, failed_count: 2, skipped_count: 1, unknown_count: 1, pause_reason: 'Token inválido' })),
      'POST /api/campaigns/1/retry-failed': () => ({ body: campaign({ status: 'paused' }) }),
    };
    renderAt('/campaigns/1', <CampaignDetailPage />, '/campaigns/:id');
    expect(await screen.findByText('Token inválido')).toBeTruthy();
    expect(screen.getByTestId('count-Entregados').textContent).toBe('5');
    expect(screen.getByTestId('count-Leídos').textContent).toBe('3');
    expect(screen.getByTestId('count-Fallidos').textContent).toBe('2');
    expect(screen.getByTestId('count-Omitidos').textContent).toBe('1');
    // Spec: progress is sent over recipients (6 of 10), not every settled recipient.
    expect(screen.getAllByText('60%').length).toBeGreaterThan(0);
    await userEvent.click(screen.getByRole('button', { name: 'Reintentar fallidos' }));
    await waitFor(() => expect(calls()).toContain('POST /api/campaigns/1/retry-failed'));
  });

  it('says "Campaña no encontrada" for a missing campaign', async () => {
    api.routes = { 'GET /api/campaigns/1': () => ({ status: 404, body: { error: 'Campaña no encontrada' } }) };
    renderAt('/campaigns/1', <CampaignDetailPage />, '/campaigns/:id');
    expect(await screen.findByText('Campaña no encontrada')).toBeTruthy();
  });
});

describe('CampaignDetailPage: failed and unknown recipients are retried apart', () => {
  const sent = (c: Campaign) => ({
    'GET /api/campaigns/1': () => ({ body: c }),
    'GET /api/campaigns/1/messages': () => ({ body: { messages: [], total: 0, page: 1, limit: 50 } }),
  });

  it('"Reintentar fallidos" counts failed only; unknown ones have their own button', async () => {
    api.routes = sent(campaign({ status: 'completed', messages_sent: 8, unknown_count: 2, failed_count: 0 }));
    renderAt('/campaigns/1', <CampaignDetailPage />, '/campaigns/:id');
    expect(await screen.findByRole('button', { name: 'Reintentar desconocidos' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Reintentar fallidos' })).toBeNull();
  });

  it('warns that some may already have the message, and sends the confirmation only when accepted', async () => {
    let body: unknown = null;
    api.routes = {
      ...sent(campaign({ status: 'paused', messages_sent: 6, failed_count: 1, unknown_count: 2 })),
      'POST /api/campaigns/1/retry-unknown': (_url, init) => {
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
    expect(calls()).not.toContain('POST /api/campaigns/1/retry-unknown');
    await userEvent.click(screen.getByRole('button', { name: 'Reintentar desconocidos' }));
    await waitFor(() => expect(calls()).toContain('POST /api/campaigns/1/retry-unknown'));
    expect(body).toEqual({ confirm: true });
    expect(calls()).not.toContain('POST /api/campaigns/1/retry-failed');
  });
});
