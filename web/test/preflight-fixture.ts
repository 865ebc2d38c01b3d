import type { Preflight } from '@masivo/contract/preflight';

/** A saved campaign's pre-flight: `attempted` of `matched`, with exclusions by reason. */
export const preflight = (attempted: number, over: Partial<Preflight> = {}): Preflight => ({
  matched: attempted,
  attempted,
  excluded: [],
  template_problem: null,
  budget: { daily_limit: 1000, used: 0, left: 1000, waves: 1 },
  eta: { rate_per_second: 20, finish_at: '2025-06-02T12:00:00.000Z', sending_seconds: 60, waiting_seconds: 0 },
  cost: { currency: 'USD', total: 0.5, priced: attempted, unpriced: 0, by_country: [] },
  frequency_cap: null,
  ...over,
});
