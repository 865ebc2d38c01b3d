import type { RateCard } from '@masivo/contract/pricing';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { PricingPage } from '../src/features/pricing/components/pricing-page';
import { renderAt, stubApi } from './utils';

/** Cost up front: the "Tarifas" screen shows the card, downloads it, and reports a bad upload by line. */
const SOURCE = 'https://docs.sent.dm/docs/guides/whatsapp-pricing (tabla)';
const none = { marketing: null, utility: null, authentication: null };
const card = (over: Partial<RateCard> = {}): RateCard => ({
  currency: 'USD',
  is_default: true,
  updated_at: null,
  today: '2026-11-24',
  markets: [
    {
      market: 'AR',
      label: 'Argentina',
      is_region: false,
      current: {
        marketing: { usd_per_message: 0.0618, effective_from: '2025-07-01', source: SOURCE, source_date: '2025-07-01' },
        utility: { usd_per_message: null, effective_from: '2025-10-01', source: null, source_date: null },
        authentication: null,
      },
    },
    { market: 'MX', label: 'México', is_region: false, current: none },
    { market: 'resto_latam', label: 'Resto de América Latina', is_region: true, current: none },
  ],
  rates: [
    { category: 'marketing', market: 'AR', label: 'Argentina', effective_from: '2025-07-01', usd_per_message: 0.0618, source: SOURCE, source_date: '2025-07-01' },
    { category: 'utility', market: 'AR', label: 'Argentina', effective_from: '2025-10-01', usd_per_message: null, source: null, source_date: null },
  ],
  regions: [{ key: 'resto_latam', label: 'Resto de América Latina', countries: ['UY'] }],
  ...over,
});

describe('PricingPage', () => {
  it('shows the rate in force per country and category, since when and its source, and "sin tarifa" otherwise', async () => {
    stubApi({ 'GET /api/pricing': () => ({ body: card() }) });
    renderAt('/pricing', <PricingPage />);
    const table = await screen.findByRole('region', { name: 'Tarifas por país' });
    const ar = within(table).getByRole('row', { name: /Argentina/ });
    const cells = within(ar).getAllByRole('cell');
    expect(cells[0].textContent).toContain('US$ 0,0618');
    expect(cells[0].textContent).toContain('desde 01/07/2025');
    expect(within(cells[0]).getByRole('link', { name: 'docs.sent.dm' }).getAttribute('href')).toBe('https://docs.sent.dm/docs/guides/whatsapp-pricing');
    expect(cells[1].textContent).toContain('sin tarifa');
    expect(cells[1].textContent).toContain('desde 01/10/2025');
    expect(cells[2].textContent).toBe('sin tarifa');
    const mx = within(table).getByRole('row', { name: /México/ });
    expect(within(mx).getAllByText('sin tarifa')).toHaveLength(3);
    expect(screen.getByText(/Usas la tarifa incluida en la consola/)).toBeTruthy();
    expect(screen.queryByRole('button', { name: /Restaurar/ })).toBeNull();
  });

  it('lists each bad line of a refused upload and keeps the card as it was', async () => {
    const errors = [
      { line: 3, message: 'Línea 3: el país «XX» no existe (código ISO de 2 letras o resto_latam)' },
      { line: 7, message: 'Línea 7: la fecha «2026-02-30» de vigente_desde no es válida (AAAA-MM-DD)' },
    ];
    const api = stubApi({
      'GET /api/pricing': () => ({ body: card() }),
      'PUT /api/pricing/csv': () => ({ status: 400, body: { error: 'El archivo tiene 2 errores; no se aplicó ningún cambio.', errors } }),
    });
    renderAt('/pricing', <PricingPage />);
    await screen.findByRole('region', { name: 'Tarifas por país' });
    const csv = 'categoria,pais,vigente_desde,usd_por_mensaje\nmarketing,XX,2026-01-01,0.1\n';
    await userEvent.upload(screen.getByLabelText('Archivo CSV de tarifas'), new File([csv], 'tarifas.csv', { type: 'text/csv' }));
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('El archivo tiene 2 errores; no se aplicó ningún cambio.')).toBeTruthy();
    expect(within(alert).getAllByRole('listitem').map((li) => li.textContent)).toEqual(errors.map((e) => e.message));
    expect(api.bodies('PUT /api/pricing/csv')).toEqual([{ csv }]);
    const table = screen.getByRole('region', { name: 'Tarifas por país' });
    expect(within(table).getByRole('row', { name: /Argentina/ }).textContent).toContain('US$ 0,0618');
  });

  it('applies a good upload, shows the tenant’s own card and offers to restore the shipped one', async () => {
    const own = card({
      is_default: false,
      updated_at: '2026-11-24T10:00:00.000Z',
      markets: [{ market: 'AR', label: 'Argentina', is_region: false, current: { ...none, marketing: { usd_per_message: 0.05, effective_from: '2026-01-01', source: null, source_date: null } } }],
    });
    const api = stubApi({
      'GET /api/pricing': () => ({ body: card() }),
      'PUT /api/pricing/csv': () => ({ body: own }),
      'DELETE /api/pricing': () => ({ body: { success: true } }),
    });
    renderAt('/pricing', <PricingPage />);
    await screen.findByRole('region', { name: 'Tarifas por país' });
    await userEvent.upload(screen.getByLabelText('Archivo CSV de tarifas'), new File(['categoria,pais,vigente_desde,usd_por_mensaje\nmarketing,AR,2026-01-01,0.05'], 't.csv', { type: 'text/csv' }));
    const table = screen.getByRole('region', { name: 'Tarifas por país' });
    await waitFor(() => expect(within(table).getByRole('row', { name: /Argentina/ }).textContent).toContain('US$ 0,05'));
    expect(screen.getByText(/Usas tu propia tarifa/)).toBeTruthy();
    expect(screen.queryByRole('alert')).toBeNull();
    vi.spyOn(window, 'confirm').mockReturnValue(true);
    await userEvent.click(screen.getByRole('button', { name: 'Restaurar la tarifa incluida' }));
    await waitFor(() => expect(api.calls()).toContain('DELETE /api/pricing'));
  });

  it('downloads the CSV the server sends', async () => {
    const api = stubApi({ 'GET /api/pricing': () => ({ body: card() }), 'GET /api/pricing/csv': () => ({ body: 'csv' }) });
    const created = vi.fn(() => 'blob:tarifas');
    Object.assign(URL, { createObjectURL: created, revokeObjectURL: vi.fn() });
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => {});
    renderAt('/pricing', <PricingPage />);
    await screen.findByRole('region', { name: 'Tarifas por país' });
    await userEvent.click(screen.getByRole('button', { name: 'Descargar CSV' }));
    await waitFor(() => expect(click).toHaveBeenCalled());
    expect(api.calls()).toContain('GET /api/pricing/csv');
    expect(created).toHaveBeenCalled();
  });
});
