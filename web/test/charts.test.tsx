import type { CampaignStats, DashboardActivity } from '@masivo/contract/stats';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { bucketLabel, formatPercent } from '../src/components/charts/chart-format';
import { ageLabel } from '../src/components/charts/data-age';
import { CampaignDetailPage } from '../src/features/campaigns/components/campaign-detail-page';
import { activitySeries, activityTotals, ALL_NUMBERS } from '../src/features/dashboard/components/activity-series';
import { DashboardPage } from '../src/features/dashboard/components/dashboard-page';
import { campaign, renderAt, stubApi, type ApiStub } from './utils';

/**
 * Charts: the detail screen's timeline, funnel and failures and the dashboard's 30
 * days per number. jsdom lays nothing out, so the drawings stay empty: what is checked is what
 * every reader gets, the headings, the text summaries and the tables under "Ver datos".
 */

const STATS: CampaignStats = {
  bucket_minutes: 1,
  time_zone: 'UTC',
  timeline: [
    { at: '2026-03-02T10:00:00.000Z', sent: 40, delivered: 0, read: 0 },
    { at: '2026-03-02T10:01:00.000Z', sent: 55, delivered: 30, read: 2 },
    { at: '2026-03-02T10:02:00.000Z', sent: 5, delivered: 60, read: 48 },
  ],
  funnel: { attempted: 100, sent: 100, delivered: 90, read: 50, replied: 5 },
  failures: [
    { code: 131026, description: 'Mensaje no entregable: el número no tiene WhatsApp', count: 6 },
    { code: null, description: 'Sin código de Meta', count: 1 },
  ],
  folded_at: null,
};

const day = (offset: number) => {
  const d = new Date('2026-03-01T00:00:00Z');
  d.setUTCDate(d.getUTCDate() + offset);
  return d.toISOString().slice(0, 10);
};
const days = (fill: (i: number) => { sent: number; delivered: number; read: number; failed: number }) =>
  Array.from({ length: 30 }, (_, i) => ({ day: day(i), ...fill(i) }));

const ACTIVITY: DashboardActivity = {
  days: 30,
  time_zone: 'UTC',
  from: day(0),
  to: day(29),
  numbers: [
    { whatsapp_account_id: 1, name: 'Ventas', phone: '+54 9 11 5555-0001', days: days((i) => (i === 29 ? { sent: 100, delivered: 80, read: 40, failed: 3 } : { sent: 0, delivered: 0, read: 0, failed: 0 })) },
    { whatsapp_account_id: 2, name: 'Soporte', phone: null, days: days((i) => (i === 29 ? { sent: 100, delivered: 100, read: 100, failed: 0 } : { sent: 0, delivered: 0, read: 0, failed: 0 })) },
  ],
  folded_at: null,
};

/** The rollups' fold time as the API gives it: `ms` before the request. */
const foldedAgo = (ms: number) => new Date(Date.now() - ms).toISOString();

let api: ApiStub;
beforeEach(() => {
  // The chart library measures its container; jsdom has no ResizeObserver.
  vi.stubGlobal(
    'ResizeObserver',
    class {
      observe() {}
      unobserve() {}
      disconnect() {}
    },
  );
  api = stubApi({
    'GET /api/campaigns': () => ({ body: [] }),
    'GET /api/kommo/accounts': () => ({ body: [] }),
    'GET /api/campaigns/1': () => ({ body: campaign({ id: 1, status: 'completed', started_at: '2026-03-02T10:00:00.000Z', total_recipients: 100, messages_sent: 100 }) }),
    'GET /api/campaigns/1/messages': () => ({ body: { messages: [], total: 0, page: 1, limit: 50 } }),
    'GET /api/campaigns/1/stats': () => ({ body: { ...STATS, folded_at: foldedAgo(12_000) } }),
    'GET /api/dashboard/activity': () => ({ body: { ...ACTIVITY, folded_at: foldedAgo(3 * 60_000 + 5_000) } }),
  });
});

// The charts' chunk loads lazily: the first render waits for it.
const region = (name: string | RegExp) => screen.findByRole('region', { name }, { timeout: 5000 });

describe('campaign detail charts', () => {
  it('shows the timeline, funnel and failures with headings, summaries and data tables', async () => {
    renderAt('/campaigns/1', <CampaignDetailPage />, '/campaigns/:id');
    const timeline = await region(/^Envíos, entregas y lecturas por minuto \((UTC|GMT[+-]\d+|[A-Z]{3,4})\)$/);
    expect(within(timeline).getByText(/100 enviados, 90 entregados y 50 leídos; el máximo fue de 55 envíos/)).toBeTruthy();
    const timelineTable = within(timeline).getByRole('table', { name: /^Envíos, entregas y lecturas por minuto \(/ });
    expect(within(timelineTable).getAllByRole('row')).toHaveLength(4);
    expect(within(timelineTable).getAllByRole('rowheader').map((c) => c.textContent)).toHaveLength(3);
    expect(within(timeline).getByText('Ver datos').closest('details')).toBeTruthy();

    const funnel = await region(/Embudo/);
    expect(within(funnel).getByText(/De 100 intentados: 100 enviados \(100 %\), 90 entregados \(90 %\), 50 leídos \(50 %\), 5 respondieron \(5 %\)/)).toBeTruthy();
    const funnelRows = within(within(funnel).getByRole('table')).getAllByRole('row').slice(1);
    expect(funnelRows.map((r) => r.textContent)).toEqual(['Intentados100100 %', 'Enviados100100 %', 'Entregados9090 %', 'Leídos5050 %', 'Respondieron55 %']);

    const failures = await region('Fallos por código de error de Meta');
    expect(within(failures).getByText('7 destinatarios fallaron:')).toBeTruthy();
    const codes = within(failures).getByTestId('failure-codes');
    expect(within(codes).getByText('131026')).toBeTruthy();
    expect(within(codes).getByText('Mensaje no entregable: el número no tiene WhatsApp')).toBeTruthy();
    expect(within(codes).getByText('Sin código')).toBeTruthy();
    // The drawing is hidden from screen readers, which read the summary and the table instead.
    expect(failures.querySelector('[aria-hidden="true"]')).toBeTruthy();

    const asked = api.requests.find((r) => r.key === 'GET /api/campaigns/1/stats')!;
    expect(asked.url.searchParams.get('tz')).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
    // The charts come from rollups folded every few seconds: their age is on screen.
    expect(screen.getByTestId('data-age').textContent).toMatch(/^Datos actualizados hace 1[2-9] s$/);
  });

  it('says so when nothing was sent or failed yet', async () => {
    api.routes['GET /api/campaigns/1/stats'] = () => ({
      body: { ...STATS, timeline: [], funnel: { attempted: 10, sent: 0, delivered: 0, read: 0, replied: 0 }, failures: [] },
    });
    renderAt('/campaigns/1', <CampaignDetailPage />, '/campaigns/:id');
    expect(await screen.findByText('Todavía no hay envíos, entregas ni lecturas.')).toBeTruthy();
    expect(screen.getByText('Ningún envío falló.')).toBeTruthy();
  });

  it('asks nothing for a campaign that has not started', async () => {
    api.routes['GET /api/campaigns/1'] = () => ({ body: campaign({ id: 1, status: 'draft' }) });
    api.routes['GET /api/campaigns/1/preflight'] = () => ({ status: 500, body: { error: 'x' } });
    renderAt('/campaigns/1', <CampaignDetailPage />, '/campaigns/:id');
    expect(await screen.findByText('Progreso de la Campaña')).toBeTruthy();
    expect(api.calls()).not.toContain('GET /api/campaigns/1/stats');
    expect(screen.queryByRole('region', { name: /Embudo/ })).toBeNull();
  });

  it("shows the server's error in place of the charts", async () => {
    api.routes['GET /api/campaigns/1/stats'] = () => ({ status: 400, body: { error: 'Zona horaria inválida: usa un nombre como America/Bogota' } });
    renderAt('/campaigns/1', <CampaignDetailPage />, '/campaigns/:id');
    expect(await screen.findByText('Zona horaria inválida: usa un nombre como America/Bogota')).toBeTruthy();
  });
});

describe('dashboard activity', () => {
  it('draws every number together, then one number from the selector', async () => {
    renderAt('/', <DashboardPage />);
    const volumes = await region('Mensajes por día, últimos 30 días');
    expect(screen.getByRole('heading', { level: 2, name: 'Actividad de los últimos 30 días' })).toBeTruthy();
    expect(within(volumes).getByRole('heading', { level: 3 }).textContent).toBe('Mensajes por día, últimos 30 días');
    expect(within(volumes).getByText(/todos los números: 200 enviados, 180 entregados, 140 leídos y 3 fallidos/)).toBeTruthy();
    const rates = await region('Tasas de entrega y lectura por día');
    expect(within(rates).getByText(/Tasa de entrega \(entregados \/ enviados\): 90 %; tasa de lectura \(leídos \/ entregados\): 77,8 %/)).toBeTruthy();
    const rateRows = within(within(rates).getByRole('table')).getAllByRole('row');
    expect(rateRows).toHaveLength(31);
    expect(rateRows[30]!.textContent).toBe('30/0390 %77,8 %');
    expect(rateRows[1]!.textContent).toBe('01/03––');

    const picker = screen.getByLabelText('Número de WhatsApp');
    expect(within(picker).getAllByRole('option').map((o) => o.textContent)).toEqual(['Todos los números', 'Ventas (+54 9 11 5555-0001)', 'Soporte']);
    await userEvent.selectOptions(picker, '1');
    expect(within(volumes).getByText(/Ventas: 100 enviados, 80 entregados, 40 leídos y 3 fallidos/)).toBeTruthy();
    expect(within(rates).getByText(/: 80 %; tasa de lectura \(leídos \/ entregados\): 50 %/)).toBeTruthy();
    expect(screen.getByTestId('data-age').textContent).toBe('Datos actualizados hace 3 min');
    const asked = api.requests.find((r) => r.key === 'GET /api/dashboard/activity')!;
    expect(asked.url.searchParams.get('days')).toBe('30');
    expect(asked.url.searchParams.get('tz')).toBeTruthy();
  });

  it("shows the server's error in place of the charts and keeps the rest of the dashboard", async () => {
    api.routes['GET /api/dashboard/activity'] = () => ({ status: 500, body: { error: '' } });
    renderAt('/', <DashboardPage />);
    expect(await screen.findByText('No se pudo cargar la actividad de los últimos 30 días')).toBeTruthy();
    expect(screen.getByText('Campañas Recientes')).toBeTruthy();
  });
});

describe('chart helpers', () => {
  it('sums the numbers day by day and computes the rates', () => {
    const all = activitySeries(ACTIVITY, ALL_NUMBERS);
    expect(all).toHaveLength(30);
    expect(all[29]).toEqual({ day: day(29), sent: 200, delivered: 180, read: 140, failed: 3, delivery_rate: 0.9, read_rate: 140 / 180 });
    expect(all[0]!.delivery_rate).toBeNull();
    expect(activityTotals(activitySeries(ACTIVITY, '2'))).toMatchObject({ sent: 100, delivery_rate: 1, read_rate: 1 });
  });

  it("says the charts' age in Spanish", () => {
    const now = Date.parse('2026-03-02T10:00:00Z');
    const ago = (ms: number) => ageLabel(new Date(now - ms).toISOString(), now);
    expect([0, 12_000, 59_000, 60_000, 3_599_000, 7_200_000].map(ago)).toEqual(['hace 0 s', 'hace 12 s', 'hace 59 s', 'hace 1 min', 'hace 59 min', 'hace 2 h']);
  });

  it('names buckets and percentages in Spanish', () => {
    expect([1, 5, 60, 180, 1440, 2880].map(bucketLabel)).toEqual(['por minuto', 'por 5 minutos', 'por hora', 'por 3 horas', 'por día', 'por 2 días']);
    expect(formatPercent(0.778)).toBe('77,8 %');
    expect(formatPercent(null)).toBe('–');
  });
});
