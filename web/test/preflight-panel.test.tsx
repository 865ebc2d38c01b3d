import { screen, waitFor, fireEvent } from '@testing-library/react';
import type { Preflight } from '@masivo/contract/preflight';
import { describe, expect, it } from 'vitest';
import { PreflightPanel } from '../src/features/campaigns/components/preflight-panel';
import { FrequencyCapCard } from '../src/features/campaigns/components/frequency-cap-card';
import { renderAt, stubApi } from './utils';

const preflight = (over: Partial<Preflight> = {}): Preflight => ({
  matched: 120,
  attempted: 78,
  excluded: [
    { reason: 'invalid_phone', label: 'sin teléfono válido', count: 40 },
    { reason: 'duplicate', label: 'duplicado', count: 1 },
    { reason: 'blacklisted', label: 'en lista negra', count: 0 },
    { reason: 'frequency_cap', label: 'tope de frecuencia', count: 1 },
    { reason: 'us_marketing', label: 'EE.UU. (marketing)', count: 0 },
    { reason: 'template_unfit', label: 'plantilla no apta', count: 0 },
  ],
  template_problem: null,
  budget: { daily_limit: 50, used: 10, left: 40, waves: 2 },
  eta: { rate_per_second: 80, finish_at: '2026-11-25T10:00:00.000Z', sending_seconds: 1, waiting_seconds: 86_400 },
  cost: { currency: 'USD', total: 0, priced: 0, unpriced: 78, by_country: [{ country: 'AR', count: 78, rate: null }] },
  frequency_cap: { max_messages: 2, days: 7 },
  ...over,
});

describe('the pre-flight panel', () => {
  it('shows the attempted, each exclusion with a count, the waves and "sin tarifa"', () => {
    renderAt('/', <PreflightPanel data={preflight()} isLoading={false} />);
    expect(screen.getByTestId('preflight-attempted').textContent).toBe('78');
    const excluded = screen.getByTestId('preflight-excluded');
    expect(excluded.textContent).toContain('Sin teléfono válido40');
    expect(excluded.textContent).toContain('Tope de frecuencia1');
    expect(excluded.textContent).not.toContain('En lista negra');
    expect(screen.getByTestId('preflight-budget').textContent).toContain('Quedan 40 de 50');
    expect(screen.getByTestId('preflight-budget').textContent).toContain('Se enviará en 2 días');
    expect(screen.getByTestId('preflight-cost').textContent).toBe('sin tarifa');
    expect(screen.getByRole('status').getAttribute('aria-live')).toBe('polite');
  });

  it('prices what has a rate and counts the rest as "sin tarifa"', () => {
    renderAt('/', <PreflightPanel data={preflight({ cost: { currency: 'USD', total: 4.5, priced: 70, unpriced: 8, by_country: [] } })} isLoading={false} />);
    expect(screen.getByTestId('preflight-cost').textContent).toMatch(/4,50.*US\$|US\$.*4,50|4,50 \$/);
    expect(screen.getByTestId('preflight-cost').textContent).toContain('+ 8 sin tarifa');
  });
});

describe('the frequency cap card', () => {
  it('is off by default, suggests 2 in 7, and saves', async () => {
    const api = stubApi({
      'GET /api/settings/frequency-cap': () => ({ body: { cap: null } }),
      'PUT /api/settings/frequency-cap': () => ({ body: { cap: { max_messages: 2, days: 7 } } }),
    });
    renderAt('/', <FrequencyCapCard />);
    const toggle = await screen.findByLabelText('Activar el tope de frecuencia');
    await waitFor(() => expect((toggle as HTMLInputElement).disabled).toBe(false));
    expect((toggle as HTMLInputElement).checked).toBe(false);
    fireEvent.click(toggle);
    expect((screen.getByLabelText('Máximo de mensajes') as HTMLInputElement).value).toBe('2');
    expect((screen.getByLabelText('En días') as HTMLInputElement).value).toBe('7');
    fireEvent.click(screen.getByRole('button', { name: 'Guardar' }));
    await waitFor(() => expect(api.bodies('PUT /api/settings/frequency-cap')).toEqual([{ cap: { max_messages: 2, days: 7 } }]));
  });
});
