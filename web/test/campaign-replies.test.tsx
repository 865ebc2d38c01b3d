import type { Campaign, CampaignMessage } from '@masivo/contract/campaigns';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { CampaignDetailPage } from '../src/features/campaigns/components/campaign-detail-page';
import { campaign, renderAt, stubApi, type ApiStub } from './utils';

/** Replies on the detail screen: the "Respuestas" card, the real cost, and the recipients' reply filter. */
let api: ApiStub;
beforeEach(() => {
  api = stubApi();
});

const sent = (over: Partial<Campaign> = {}) =>
  campaign({
    status: 'completed',
    started_at: '2026-11-20T10:00:00.000Z',
    completed_at: '2026-11-20T10:05:00.000Z',
    messages_sent: 40,
    delivered_count: 38,
    read_count: 30,
    pending_count: 0,
    total_recipients: 40,
    replies: {
      replied: 10,
      accepted: 40,
      rate: 0.25,
      taps: [
        { button: 'Me interesa', taps: 7, recipients: 6 },
        { button: 'Ahora no', taps: 1, recipients: 1 },
      ],
    },
    actual_cost: {
      currency: 'USD',
      total: 1.236,
      priced: 20,
      free: 3,
      no_rate: 2,
      unpriceable: 1,
      lines: [
        { category: 'marketing', country: 'AR', type: 'regular', model: 'PMP', count: 20, total: 1.236, status: 'priced' },
        { category: 'marketing', country: 'AR', type: 'free_entry_point', model: 'PMP', count: 3, total: 0, status: 'free' },
        { category: 'marketing', country: 'ES', type: 'regular', model: 'PMP', count: 2, total: null, status: 'no_rate' },
        { category: 'marketing', country: null, type: null, model: 'CBP', count: 1, total: null, status: 'unpriceable' },
      ],
      estimate: { total: 2.472, priced: 40, unpriced: 0 },
    },
    ...over,
  });

const row = (over: Partial<CampaignMessage>): CampaignMessage => ({
  id: 1,
  contact_id: 1,
  contact_name: 'Ana',
  phone: '+5491130000001',
  status: 'read',
  error_code: null,
  error_message: null,
  wamid: 'wamid.1',
  attempts: 1,
  sent_at: '2026-11-20T10:00:01.000Z',
  delivered_at: '2026-11-20T10:00:02.000Z',
  read_at: '2026-11-20T10:00:03.000Z',
  failed_at: null,
  held: false,
  pricing_category: 'marketing',
  replied_at: null,
  reply_count: 0,
  last_reply: null,
  button_tapped: null,
  ...over,
});

describe('the "Respuestas" card and the real cost', () => {
  it('shows who replied with the rate, taps per button, and the real cost next to the estimate', async () => {
    api.routes = {
      'GET /api/campaigns/1': () => ({ body: sent() }),
      'GET /api/campaigns/1/messages': () => ({ body: { messages: [], total: 0, page: 1, limit: 50 } }),
    };
    renderAt('/campaigns/1', <CampaignDetailPage />, '/campaigns/:id');
    const card = await screen.findByTestId('campaign-replies');
    expect(within(card).getByRole('heading', { name: 'Respuestas' })).toBeTruthy();
    expect(within(card).getByTestId('replies-count').textContent).toBe('Respondieron 10');
    expect(card.textContent).toMatch(/\(25\s%\)/);
    expect(card.textContent).toContain('de 40 mensajes aceptados por Meta');
    const taps = within(card).getByRole('list', { name: 'Toques por botón' });
    expect(within(taps).getAllByRole('listitem').map((li) => li.textContent)).toEqual(['Me interesa7 toques · 6 personas', 'Ahora no1 toque · 1 persona']);

    const cost = screen.getByTestId('campaign-cost');
    expect(within(cost).getByTestId('cost-actual').textContent).toMatch(/^1,236\s*US\$ \+ 2 sin tarifa$/);
    expect(within(cost).getByTestId('cost-estimate').textContent).toMatch(/^2,472\s*US\$$/);
    const lines = within(cost).getByRole('list', { name: 'Costo por categoría, país y tipo' });
    const texts = within(lines).getAllByRole('listitem').map((li) => li.textContent);
    expect(texts[0]).toMatch(/^Marketing · AR · con cargo · 20.*1,236/);
    expect(texts[1]).toMatch(/^Marketing · AR · gratis \(punto de entrada\) · 3.*0,00/);
    expect(texts[2]).toMatch(/^Marketing · ES · con cargo · 2.*sin tarifa$/);
    expect(texts[3]).toMatch(/^Marketing · país desconocido · 1.*modelo por conversación/);
    expect(cost.textContent).toContain('3 mensajes no entran en el total');
    // Counted from the recipients just now (no `as_of`): no age is shown.
    expect(within(cost).queryByTestId('data-age')).toBeNull();
  });

  it("says how old the real cost is when it comes from the rollups", async () => {
    const asOf = new Date(Date.now() - 12_000).toISOString();
    api.routes = {
      'GET /api/campaigns/1': () => ({ body: sent({ actual_cost: { ...sent().actual_cost!, as_of: asOf } }) }),
      'GET /api/campaigns/1/messages': () => ({ body: { messages: [], total: 0, page: 1, limit: 50 } }),
    };
    renderAt('/campaigns/1', <CampaignDetailPage />, '/campaigns/:id');
    const cost = await screen.findByTestId('campaign-cost');
    expect(within(cost).getByTestId('data-age').textContent).toMatch(/^Datos actualizados hace 1[2-4] s$/);
  });

  it('is not shown before the campaign starts', async () => {
    api.routes = {
      'GET /api/campaigns/1': () => ({ body: campaign({ status: 'draft', replies: { replied: 0, accepted: 0, rate: 0, taps: [] }, actual_cost: null }) }),
      'GET /api/campaigns/1/messages': () => ({ body: { messages: [], total: 0, page: 1, limit: 50 } }),
      'GET /api/campaigns/1/preflight': () => ({ status: 409, body: { error: 'sin datos' } }),
    };
    renderAt('/campaigns/1', <CampaignDetailPage />, '/campaigns/:id');
    await screen.findByRole('heading', { name: 'Promo' });
    expect(screen.queryByTestId('campaign-replies')).toBeNull();
    expect(screen.queryByTestId('campaign-cost')).toBeNull();
    expect(screen.queryByRole('combobox', { name: 'Filtrar por respuesta' })).toBeNull();
  });
});

describe('the recipients filter by reply', () => {
  it('offers Respondieron, No respondieron and one "Tocaron" per tapped button, asks the server with group/button, and shows each reply', async () => {
    const replied = [
      row({ id: 1, reply_count: 3, last_reply: '¿Tienen envío?', button_tapped: 'Me interesa', replied_at: '2026-11-20T10:10:00.000Z' }),
      row({ id: 2, phone: '+5491130000002', contact_name: 'Beto', reply_count: 1, last_reply: '[Imagen]' }),
    ];
    api.routes = {
      'GET /api/campaigns/1': () => ({ body: sent() }),
      'GET /api/campaigns/1/messages': (url) => {
        const group = url.searchParams.get('group');
        const button = url.searchParams.get('button');
        const list = group === 'tapped' ? replied.filter((m) => m.button_tapped === button) : group === 'replied' ? replied : [row({ id: 3 }), ...replied];
        return { body: { messages: list, total: list.length, page: 1, limit: 50 } };
      },
    };
    renderAt('/campaigns/1', <CampaignDetailPage />, '/campaigns/:id');
    const select = await screen.findByRole('combobox', { name: 'Filtrar por respuesta' });
    expect(within(select).getAllByRole('option').map((o) => o.textContent)).toEqual([
      'Todos',
      'Respondieron',
      'No respondieron',
      'Tocaron «Me interesa»',
      'Tocaron «Ahora no»',
    ]);
    expect(await screen.findByText('¿Tienen envío?')).toBeTruthy();
    expect(screen.getByText('(3 mensajes)')).toBeTruthy();
    expect(screen.getByText('Tocó «Me interesa»')).toBeTruthy();
    expect(screen.getByText('[Imagen]')).toBeTruthy();

    await userEvent.selectOptions(select, 'Tocaron «Me interesa»');
    await waitFor(() =>
      expect(api.requests.some((r) => r.key === 'GET /api/campaigns/1/messages' && r.url.searchParams.get('group') === 'tapped' && r.url.searchParams.get('button') === 'Me interesa')).toBe(true),
    );
    await waitFor(() => expect(screen.queryByText('[Imagen]')).toBeNull());
    expect(screen.getByText('¿Tienen envío?')).toBeTruthy();

    await userEvent.selectOptions(select, 'No respondieron');
    await waitFor(() => expect(api.requests.some((r) => r.url.searchParams.get('group') === 'not_replied')).toBe(true));
  });
});
