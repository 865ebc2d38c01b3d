/**
 * Meta's throughput per number (messages per second, inbound and outbound together): 80 by
 * default (`throughput.level` STANDARD), 1,000 once upgraded (HIGH), and a fixed 20 for a
 * number also used in the WhatsApp Business app (coexistence, `is_on_biz_app`). The sender
 * paces at the lower of this and the operator's configured rate.
 */
export const THROUGHPUT_LEVEL_RATES: Readonly<Record<string, number>> = { STANDARD: 80, HIGH: 1000 };
export const COEXISTENCE_RATE = 20;

export interface ThroughputFacts {
  throughputLevel: string | null;
  isOnBizApp: boolean | null;
}

/** Meta's rate for the number, or null while Meta has not told (never tested, unknown level). */
export function metaRatePerSecond(f: ThroughputFacts): number | null {
  if (f.isOnBizApp === true) return COEXISTENCE_RATE;
  return THROUGHPUT_LEVEL_RATES[(f.throughputLevel ?? '').toUpperCase()] ?? null;
}

/** What the sender paces at: the operator's rate, capped by Meta's when it is known. */
export function effectiveRatePerSecond(configured: number, f: ThroughputFacts): number {
  const meta = metaRatePerSecond(f);
  return meta === null ? configured : Math.min(configured, meta);
}
