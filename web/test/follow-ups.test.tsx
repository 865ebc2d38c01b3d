import type { Campaign } from '@masivo/contract/campaigns';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { CampaignDetailPage } from '../src/features/campaigns/components/campaign-detail-page';
import { campaign, renderAt, stubApi, type ApiStub } from './utils';

/** Follow-ups: "Nueva campaña para…" (dialog, count, draft) and "Exportar resultados". */
let api: ApiStub;
beforeEach(() => {
  api = stubApi();
});

const sent = campaign({ id: 1, name: 'Promo', status: 'completed', started_at: '2025-01-02T10:00:00.000Z', completed_at: '2025-01-02T11:00:00.000Z', messages_sent: 10, pending_count: 0 });
const followUp: Campaign = campaign({
  id: 7,
  name: 'Promo · Tocaron «Sí»',
  total_recipients: 1,
  pending_count: 0,
  audience_kind: 'contact_list',
  follow_up_of: { campaign_id: 1, campaign_name: 'Promo', group: 'tapped', group_label: 'Tocaron «Sí»', hours: null, button: 'Sí' },
});
const counts: Record<string, number> = { 'unread:24': 3, 'unread:48': 1, 'tapped:Sí': 1, 'read_not_replied:': 0 };

function routes(extra: Record<string, unknown> = {}) {
  api.routes = {
    'GET /api/campaigns/1': () => ({ body: sent }),
    'GET /api/campaigns/1/messages': () => ({ body: { messages: [], total: 4, page: 1, limit: 50 } }),
    'GET /api/templates/account/1': () => ({
      body: [
        { id: 1, name: 'promo_verano', language: 'es', status: 'approved' },
        { id: 2, name: 'recordatorio', language: 'es', status: 'approved' },
        { id: 3, name: 'borrador', language: 'es', status: 'pending' },
      ],
    }),
    'GET /api/campaigns/1/follow-up/count': (url) => {
      const group = url.searchParams.get('group')!;
      const key = `${group}:${url.searchParams.get('hours') ?? url.searchParams.get('button') ?? ''}`;
      return { body: { group, label: group, count: counts[key] ?? 0 } };
    },
    'POST /api/campaigns/1/follow-up': () => ({ status: 201, body: followUp }),
    'GET /api/campaigns/7': () => ({ body: followUp }),
    'GET /api/campaigns/7/messages': () => ({ body: { messages: [], total: 0, page: 1, limit: 50 } }),
    'GET /api/campaigns/7/preflight': () => ({ body: PREFLIGHT }),
    ...extra,
  } as ApiStub['routes'];
}

const PREFLIGHT = {
  matched: 1,
  attempted: 1,
  excluded: [],
  template_problem: null,
  budget: { daily_limit: null, used: 0, left: null, waves: 1 },
  eta: { rate_per_second: 80, finish_at: '2025-01-03T10:00:00.000Z', sending_seconds: 1, waiting_seconds: 0 },
  cost: { currency: 'USD', total: 0.0618, priced: 1, unpriced: 0, by_country: [] },
  frequency_cap: null,
};

const countText = () => screen.getByTestId('follow-up-count').textContent;

describe('Nueva campaña para…', () => {
  it('is offered only once the campaign has started', async () => {
    routes({ 'GET /api/campaigns/1': () => ({ body: campaign({ id: 1 }) }) });
    renderAt('/campaigns/1', <CampaignDetailPage />, '/campaigns/:id');
    await screen.findByRole('heading', { name: 'Promo' });
    expect(screen.queryByRole('button', { name: 'Nueva campaña para…' })).toBeNull();
  });

  it('shows the count for the group chosen, then creates the draft and opens it', async () => {
    routes();
    renderAt('/campaigns/1', <CampaignDetailPage />, '/campaigns/:id');
    await userEvent.click(await screen.findByRole('button', { name: 'Nueva campaña para…' }));
    const dialog = await screen.findByRole('dialog', { name: 'Nueva campaña para…' });
    // Opens on its first field: the default group, those who did not read after 24 h.
    const unread = within(dialog).getByRole('radio', { name: 'No leyeron el mensaje después de unas horas' });
    expect(unread).toHaveProperty('checked', true);
    await waitFor(() => expect(countText()).toMatch(/3 contactos en este grupo/));

    const hours = within(dialog).getByRole('spinbutton', { name: 'Horas desde el envío' });
    await userEvent.clear(hours);
    await userEvent.type(hours, '48');
    await waitFor(() => expect(countText()).toMatch(/^1 contacto en este grupo/));
    await userEvent.clear(hours);
    await userEvent.type(hours, '0');
    expect(countText()).toMatch(/Corrige las horas/);

    await userEvent.click(within(dialog).getByRole('radio', { name: 'Leyeron y no respondieron' }));
    await waitFor(() => expect(countText()).toMatch(/0 contactos en este grupo/));
    expect(within(dialog).getByRole('button', { name: 'Crear borrador' })).toHaveProperty('disabled', true);

    await userEvent.click(within(dialog).getByRole('radio', { name: 'Tocaron un botón' }));
    expect(countText()).toMatch(/Escribe el texto del botón/);
    await userEvent.type(within(dialog).getByRole('textbox', { name: 'Texto del botón' }), 'Sí');
    await waitFor(() => expect(countText()).toMatch(/^1 contacto en este grupo/));
    const countCalls = api.requests.filter((r) => r.key === 'GET /api/campaigns/1/follow-up/count').map((r) => Object.fromEntries(r.url.searchParams));
    expect(countCalls).toContainEqual({ group: 'tapped', button: 'Sí' });
    expect(countCalls).toContainEqual({ group: 'unread', hours: '24' });

    // Only approved templates other than the campaign's own are offered besides it.
    const template = within(dialog).getByRole('combobox', { name: 'Plantilla' });
    expect(within(template).getAllByRole('option').map((o) => o.textContent)).toEqual(['La misma: promo_verano', 'recordatorio (es)']);
    await userEvent.selectOptions(template, '2');

    const create = within(dialog).getByRole('button', { name: 'Crear borrador' });
    await waitFor(() => expect(create).toHaveProperty('disabled', false));
    await userEvent.click(create);
    expect(await screen.findByText('Campaña creada en borrador')).toBeTruthy();
    expect(api.bodies('POST /api/campaigns/1/follow-up')).toEqual([{ group: 'tapped', button: 'Sí', template_id: 2 }]);

    // The new draft's screen says its audience is a fixed list, and where it came from.
    const note = await screen.findByTestId('campaign-audience');
    expect(note.textContent).toMatch(/Audiencia: lista fija de 1 contacto de la campaña «Promo» \(Tocaron «Sí»\)/);
    expect(note.textContent).toMatch(/no se reemplaza por filtros/);
    // Its pre-flight counts the list, not a filter.
    await waitFor(() => expect(screen.getByTestId('preflight-panel').textContent).toMatch(/de 1 contactos de la lista fija/));
    expect(within(note).getByRole('link', { name: '«Promo»' }).getAttribute('href')).toBe('/campaigns/1');
  });

  it('closes with Escape, creating nothing, and gives focus back to its button', async () => {
    routes();
    renderAt('/campaigns/1', <CampaignDetailPage />, '/campaigns/:id');
    const opener = await screen.findByRole('button', { name: 'Nueva campaña para…' });
    await userEvent.click(opener);
    await screen.findByRole('dialog');
    await userEvent.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(document.activeElement).toBe(opener);
    expect(api.calls()).not.toContain('POST /api/campaigns/1/follow-up');
  });

  it('shows the server’s Spanish error when the draft cannot be created', async () => {
    routes({ 'POST /api/campaigns/1/follow-up': () => ({ status: 400, body: { error: 'Ningún destinatario de la campaña está en este grupo: no se creó ninguna campaña' } }) });
    renderAt('/campaigns/1', <CampaignDetailPage />, '/campaigns/:id');
    await userEvent.click(await screen.findByRole('button', { name: 'Nueva campaña para…' }));
    const dialog = await screen.findByRole('dialog');
    const create = within(dialog).getByRole('button', { name: 'Crear borrador' });
    await waitFor(() => expect(create).toHaveProperty('disabled', false));
    await userEvent.click(create);
    expect(await screen.findByText(/no se creó ninguna campaña/)).toBeTruthy();
    expect(screen.getByRole('dialog')).toBeTruthy();
  });
});

describe('Exportar resultados', () => {
  it('downloads what the recipients table filters', async () => {
    routes();
    const created = vi.fn(() => 'blob:resultados');
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL: created, revokeObjectURL: vi.fn() }));
    // The browser's download: which file name the link got (jsdom cannot navigate).
    const names: string[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      names.push(this.download);
    });
    api.routes['GET /api/campaigns/1/results.csv'] = () => ({ body: 'csv' });
    renderAt('/campaigns/1', <CampaignDetailPage />, '/campaigns/:id');
    const exportButton = await screen.findByRole('button', { name: 'Exportar resultados' });
    await waitFor(() => expect(exportButton).toHaveProperty('disabled', false));
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Filtrar por estado' }), 'failed');
    await userEvent.click(exportButton);
    expect(await screen.findByText('Resultados descargados')).toBeTruthy();
    const req = api.requests.find((r) => r.key === 'GET /api/campaigns/1/results.csv')!;
    expect(Object.fromEntries(req.url.searchParams)).toEqual({ status: 'failed' });
    expect(created).toHaveBeenCalled();
    expect(names).toEqual(['resultados.csv']);
  });

  it('offers «CSV (Excel en español)» beside it, asks the server for csv_es, and remembers the choice', async () => {
    routes();
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL: vi.fn(() => 'blob:r'), revokeObjectURL: vi.fn() }));
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => undefined);
    api.routes['GET /api/campaigns/1/results.csv'] = () => ({ body: 'csv' });
    const view = renderAt('/campaigns/1', <CampaignDetailPage />, '/campaigns/:id');
    const exportButton = await screen.findByRole('button', { name: 'Exportar resultados' });
    await waitFor(() => expect(exportButton).toHaveProperty('disabled', false));
    const format = screen.getByRole('combobox', { name: 'Formato del CSV' });
    expect(within(format).getAllByRole('option').map((o) => o.textContent)).toEqual(['CSV', 'CSV (Excel en español)']);
    expect(format).toHaveProperty('value', 'csv');
    await userEvent.selectOptions(format, 'CSV (Excel en español)');
    await userEvent.click(exportButton);
    expect(await screen.findByText('Resultados descargados')).toBeTruthy();
    const req = api.requests.find((r) => r.key === 'GET /api/campaigns/1/results.csv')!;
    expect(Object.fromEntries(req.url.searchParams)).toEqual({ format: 'csv_es' });
    view.unmount();
    renderAt('/campaigns/1', <CampaignDetailPage />, '/campaigns/:id');
    expect(await screen.findByRole('combobox', { name: 'Formato del CSV' })).toHaveProperty('value', 'csv_es');
  });
});
