import { screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { CampaignDetailPage } from '../src/features/campaigns/components/campaign-detail-page';
import { CampaignsPage } from '../src/features/campaigns/components/campaigns-page';
import { campaign, renderAt, stubApi, type ApiStub } from './utils';

/**
 * A campaign with explicit recipients (created through the API: phones or BSUIDs with their
 * own parameters, no Kommo account) on the console's list and detail screen.
 */
let api: ApiStub;
beforeEach(() => {
  api = stubApi();
});

const explicit = campaign({ id: 9, name: 'Recordatorios API', audience_kind: 'explicit', kommo_account_id: null, total_recipients: 12345 });

const PREFLIGHT = {
  matched: 12345,
  attempted: 12311,
  excluded: [{ reason: 'blacklisted', label: 'En lista negra', count: 34 }],
  template_problem: null,
  budget: { daily_limit: null, used: 0, left: null, waves: 1 },
  eta: { rate_per_second: 80, finish_at: '2025-01-03T10:00:00.000Z', sending_seconds: 15, waiting_seconds: 0 },
  cost: { currency: 'USD', total: 74.16, priced: 12311, unpriced: 0, by_country: [] },
  frequency_cap: null,
};

describe('a campaign with explicit recipients', () => {
  it('shows its list instead of a Kommo filter, without the form or follow-ups', async () => {
    api.routes = {
      'GET /api/campaigns/9': () => ({ body: explicit }),
      'GET /api/campaigns/9/messages': () => ({ body: { messages: [], total: 0, page: 1, limit: 50 } }),
      'GET /api/campaigns/9/preflight': () => ({ body: PREFLIGHT }),
    };
    renderAt('/campaigns/9', <CampaignDetailPage />, '/campaigns/:id');
    await screen.findByRole('heading', { name: 'Recordatorios API' });
    const note = screen.getByTestId('campaign-audience');
    expect(note.textContent).toMatch(/Destinatarios: lista explícita \(12\.345\)/);
    expect(note.textContent).toMatch(/sin cuenta Kommo ni filtros/);
    // The pre-flight counts the list.
    await waitFor(() => expect(screen.getByTestId('preflight-panel').textContent).toMatch(/destinatarios de la lista explícita/));
    // The form edits a filter's audience: not offered; scheduling still is.
    expect(screen.queryByRole('link', { name: 'Editar' })).toBeNull();
    expect(screen.getByRole('button', { name: 'Programar' })).toBeTruthy();
  });

  it('is listed like any campaign', async () => {
    api.routes = { 'GET /api/campaigns': () => ({ body: [explicit, campaign({ id: 2, name: 'Con filtro' })] }) };
    renderAt('/campaigns', <CampaignsPage />, '/campaigns');
    const row = (await screen.findByText('Recordatorios API')).closest('tr')!;
    expect(within(row).getByRole('link', { name: 'Ver' }).getAttribute('href')).toBe('/campaigns/9');
    expect(screen.getByText('Con filtro')).toBeTruthy();
  });
});
