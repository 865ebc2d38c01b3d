import { describe, expect, it } from 'vitest';
import { EMPTY_SPLIT, splitTestPayload } from '../src/features/campaigns/components/split-test-fields';

describe('the form\'s "Prueba A/B" payload', () => {
  it('is absent while the test is off', () => {
    expect(splitTestPayload(EMPTY_SPLIT, 5)).toBeNull();
  });

  it('sends the variants (A first) and the settings, the share as a fraction and the wait in seconds', () => {
    expect(splitTestPayload({ ...EMPTY_SPLIT, enabled: true, others: [7, 9], sharePercent: '20', metric: 'read', wait: '4', waitUnit: 'hours', noWinner: 'stop' }, 5)).toEqual({
      variants: [{ template_id: 5 }, { template_id: 7 }, { template_id: 9 }],
      ab_test: { share: 0.2, metric: 'read', wait_seconds: 14_400, no_winner: 'stop' },
    });
    expect(splitTestPayload({ ...EMPTY_SPLIT, enabled: true, others: [7], sharePercent: '12,5', wait: '30', waitUnit: 'minutes' }, 5)).toMatchObject({
      ab_test: { share: 0.125, wait_seconds: 1800 },
    });
  });

  it('says in Spanish what is missing', () => {
    const on = { ...EMPTY_SPLIT, enabled: true };
    expect(splitTestPayload(on, undefined)).toEqual({ error: 'Elige primero la plantilla de la variante A' });
    expect(splitTestPayload(on, 5)).toEqual({ error: 'Elige la plantilla de cada variante de la prueba A/B' });
    expect(splitTestPayload({ ...on, others: [5] }, 5)).toEqual({ error: 'Cada variante de la prueba A/B debe usar una plantilla distinta' });
    expect(splitTestPayload({ ...on, others: [7], sharePercent: '0' }, 5)).toEqual({ error: 'La porción de prueba debe estar entre 1 % y 100 %' });
    expect(splitTestPayload({ ...on, others: [7], wait: '0' }, 5)).toEqual({ error: 'La espera debe ser de 1 minuto a 7 días' });
  });
});
