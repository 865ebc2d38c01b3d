import { screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { CampaignDetailPage } from '../src/features/campaigns/components/campaign-detail-page';
import { CampaignsPage } from '../src/features/campaigns/components/campaigns-page';
import { DashboardPage } from '../src/features/dashboard/components/dashboard-page';
import { campaign, renderAt, stubApi, type ApiStub } from './utils';

/** Progress: 10 failures out of 100 read 90%, with the failures in their own colour. */
const tenFailed = campaign({ id: 1, name: 'Con fallos', status: 'completed', total_recipients: 100, messages_sent: 90, failed_count: 10, pending_count: 0 });

let api: ApiStub;
beforeEach(() => {
  api = stubApi({
    'GET /api/campaigns': () => ({ body: [tenFailed] }),
    'GET /api/campaigns/1': () => ({ body: tenFailed }),
    'GET /api/campaigns/1/messages': () => ({ body: { messages: [], total: 0, page: 1, limit: 50 } }),
    'GET /api/kommo/accounts': () => ({ body: [] }),
  });
});

function expectBar(bar: HTMLElement) {
  expect(bar.getAttribute('aria-valuenow')).toBe('90');
  expect(bar.getAttribute('aria-valuetext')).toBe('90 de 100 mensajes enviados, 10 fallidos');
  const [fill, ...segments] = Array.from(bar.children) as HTMLElement[];
  expect(fill.style.width).toBe('90%');
  expect(segments).toHaveLength(1);
  expect(segments[0].style.width).toBe('10%');
  expect(segments[0].className).toContain('bg-red-500');
}

describe('campaign progress is messages_sent / total_recipients everywhere', () => {
  it('on the detail screen', async () => {
    renderAt('/campaigns/1', <CampaignDetailPage />, '/campaigns/:id');
    expect(await screen.findByText('90 de 100 mensajes enviados')).toBeTruthy();
    expect(screen.getAllByText('90%').length).toBeGreaterThan(0);
    expect(screen.queryByText('100%')).toBeNull();
    expectBar(screen.getByRole('progressbar', { name: 'Progreso de la campaña' }));
    expect(screen.getByTestId('count-Fallidos').textContent).toBe('10');
  });

  it('on the campaigns list', async () => {
    renderAt('/campaigns', <CampaignsPage />, '/campaigns');
    const row = (await screen.findByText('Con fallos')).closest('tr')!;
    expectBar(within(row).getByRole('progressbar'));
  });

  it('on the dashboard', async () => {
    renderAt('/', <DashboardPage />);
    expectBar(await screen.findByRole('progressbar', { name: 'Progreso de Con fallos' }));
    expect(api.calls()).toContain('GET /api/campaigns');
  });
});
