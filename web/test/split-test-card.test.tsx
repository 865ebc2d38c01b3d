import type { SplitArm, SplitTestView } from '@masivo/contract/split-test';
import { screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { SplitTestCard } from '../src/features/campaigns/components/split-test-card';
import { campaign, renderAt } from './utils';

/**
 * The split test's card: the minimum sample per arm («Muestra insuficiente») before and after the
 * decision, and one funnel per arm (sent, delivered, read, replied, clicks) drawn with the chart
 * library. jsdom lays nothing out: the summaries and the tables under "Ver datos" are checked.
 */
const arm = (variant: string, over: Partial<SplitArm> = {}): SplitArm => ({
  variant,
  template_id: variant === 'A' ? 11 : 12,
  template_name: variant === 'A' ? 'promo' : 'promo_b',
  recipients: 50,
  sent: 40,
  delivered: 36,
  read: 20,
  replied: 4,
  tapped: 1,
  clicked: 2,
  successes: 20,
  rate: 0.5,
  ci_low: 0.35,
  ci_high: 0.65,
  cost: 1.2,
  ...over,
});
const view = (over: Partial<SplitTestView> = {}): SplitTestView => ({
  ab_test: { share: 0.2, metric: 'read', wait_seconds: 3600, no_winner: 'send_best' },
  metric_label: 'Tasa de lectura',
  clicks_unavailable: false,
  decide_at: '2026-03-02T11:00:00.000Z',
  waiting: 400,
  arms: [arm('A'), arm('B', { sent: 40, delivered: 40, read: 30, replied: 10, clicked: null })],
  result: null,
  sample: { min_sends: 10, min_expected: 5, sufficient: true, note: null, extended_until: null },
  ...over,
});

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
});

const render = (t: SplitTestView) => renderAt('/campaigns/1', <SplitTestCard campaign={campaign({ id: 1, status: 'sending', split_test: t })} />, '/campaigns/:id');

describe('the split test card', () => {
  it('says the sample is short and how long the decision waits, in Spanish', async () => {
    render(
      view({
        sample: {
          min_sends: 10,
          min_expected: 5,
          sufficient: false,
          note: 'Para que la prueba z sea válida, cada variante necesita al menos 5 lecturas esperadas y 5 envíos sin lecturas con la tasa conjunta.',
          extended_until: '2026-03-02T12:00:00.000Z',
        },
      }),
    );
    const note = screen.getByTestId('split-test-sample');
    expect(note.textContent).toMatch(/^Muestra insuficiente por ahora: Para que la prueba z sea válida/);
    expect(note.textContent).toMatch(/La decisión espera hasta el .+; si la muestra no alcanza, se aplica «Enviar la mejor variante»\.$/);
  });

  it('shows nothing about the sample while it is enough', () => {
    render(view());
    expect(screen.queryByTestId('split-test-sample')).toBeNull();
    expect(screen.getByTestId('split-test-card').textContent).toMatch(/menos de 10 envíos o menos de 5 éxitos/);
  });

  it('explains a decision taken on too small a sample', () => {
    render(
      view({
        result: {
          outcome: 'best',
          winner: 'B',
          best: 'B',
          lift_points: 25,
          p_value: 0.01,
          z: 2.5,
          significant: false,
          summary: 'Muestra insuficiente',
          decided_at: '2026-03-02T12:00:00.000Z',
          test_arms: [
            { variant: 'A', sent: 8, successes: 0 },
            { variant: 'B', sent: 8, successes: 8 },
          ],
          insufficient_sample: true,
          sample_note: 'Cada variante necesita al menos 10 envíos aceptados por Meta (A: 8, B: 8).',
        },
      }),
    );
    const result = screen.getByTestId('split-test-result');
    expect(within(result).getByText('Muestra insuficiente')).toBeTruthy();
    expect(screen.getByTestId('split-test-sample').textContent).toBe(
      'No se declara ganadora con una muestra tan chica: Cada variante necesita al menos 10 envíos aceptados por Meta (A: 8, B: 8).',
    );
    // The p-value line of "no significant difference" is not shown for a short sample.
    expect(result.textContent).not.toMatch(/se necesita p/);
    expect(result.textContent).toMatch(/El resto del público recibe la mejor variante \(B\)\./);
  });

  it('draws one funnel per arm: sent, delivered, read, replied and clicks', async () => {
    render(view());
    const a = await screen.findByRole('region', { name: 'Embudo de la variante A' }, { timeout: 5000 });
    const b = screen.getByRole('region', { name: 'Embudo de la variante B' });
    expect(within(a).getByText('De 40 enviados: 36 entregados (90 %), 20 leídos (50 %), 4 respondieron (10 %), 2 clics (5 %).')).toBeTruthy();
    // B's clicks are not reported by Meta: "no disponible", never 0.
    expect(within(b).getByText(/30 leídos \(75 %\), 10 respondieron \(25 %\), clics no disponible\.$/)).toBeTruthy();
    const rows = within(within(b).getByRole('table', { name: 'Embudo de la variante B' })).getAllByRole('row');
    expect(rows.map((r) => Array.from(r.children).map((c) => c.textContent))).toEqual([
      ['Paso', 'Mensajes', '% de enviados'],
      ['Enviados', '40', '100 %'],
      ['Entregados', '40', '100 %'],
      ['Leídos', '30', '75 %'],
      ['Respondieron', '10', '25 %'],
      ['Clics', 'no disponible', '-'],
    ]);
  });

  it('draws no funnels before any arm was sent', () => {
    render(view({ arms: [arm('A', { sent: 0, delivered: 0, read: 0, replied: 0, clicked: 0 }), arm('B', { sent: 0, delivered: 0, read: 0, replied: 0, clicked: 0 })] }));
    expect(screen.queryByTestId('split-test-arm-charts')).toBeNull();
  });
});
