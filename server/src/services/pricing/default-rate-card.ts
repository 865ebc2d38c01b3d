import type { PricingCategory } from '@masivo/contract/pricing';

/**
 * The rate card shipped with the console: Meta's USD rates per delivered template message,
 * as far as they could be sourced. Each row names the page it was read from and that page's date
 * for the figure. A rate that could not be found with a source is NOT here: the console shows
 * "sin tarifa" for it rather than a guess. How to update this file: docs/architecture/campaign-engine.md,
 * "Cost up front: the rate card".
 *
 * A row with `usd_per_message: null` records that Meta changed the rate on that date and the new
 * figure is not sourced: from then on the market/category shows "sin tarifa" instead of the old
 * (no longer true) number.
 */
export interface ShippedRate {
  category: PricingCategory;
  /** ISO 3166-1 alpha-2 country, or a key of RATE_CARD_REGIONS. */
  market: string;
  /** In force from this day (UTC) until the next row of the same category and market. */
  effective_from: string;
  usd_per_message: number | null;
  /** The page the figure was read from. */
  source: string;
  /** The date the source gives for the figure (page update or stated effective date). */
  source_date: string;
}

const SENT_DM = 'https://docs.sent.dm/docs/guides/whatsapp-pricing (tabla «effective July 1, 2025», USD)';
const WATI = 'https://support.wati.io/en/articles/11561662-message-based-pricing-all-you-need-to-know (cambios del 1 oct 2025; monto no publicado ahí)';
const FORMBEEP = 'https://formbeep.pages.dev/whatsapp-api-pricing/ («Rates effective April 1, 2026»: Colombia utility $0.0008)';

export const DEFAULT_RATE_CARD: readonly ShippedRate[] = [
  // Argentina, per-message pricing from 1 Jul 2025.
  { category: 'marketing', market: 'AR', effective_from: '2025-07-01', usd_per_message: 0.0618, source: SENT_DM, source_date: '2025-07-01' },
  { category: 'utility', market: 'AR', effective_from: '2025-07-01', usd_per_message: 0.0289, source: SENT_DM, source_date: '2025-07-01' },
  { category: 'authentication', market: 'AR', effective_from: '2025-07-01', usd_per_message: 0.0289, source: SENT_DM, source_date: '2025-07-01' },
  // Meta lowered Argentina's utility and authentication rates on 1 Oct 2025; the new figure is not sourced.
  { category: 'utility', market: 'AR', effective_from: '2025-10-01', usd_per_message: null, source: WATI, source_date: '2025-10-01' },
  { category: 'authentication', market: 'AR', effective_from: '2025-10-01', usd_per_message: null, source: WATI, source_date: '2025-10-01' },
  // Colombia utility, card of 1 Apr 2026 (page updated 3 Apr 2026).
  { category: 'utility', market: 'CO', effective_from: '2026-04-01', usd_per_message: 0.0008, source: FORMBEEP, source_date: '2026-04-03' },
];

/**
 * Regions of Meta's rate card: a country listed here with no rate of its own is priced at its
 * region's rate. Only Latin America is covered; a country in no region and without its own
 * rate is "sin tarifa". Meta prices by the recipient's country calling code; these are the
 * Latin American countries that are not a market of their own on Meta's card (those are
 * AR, BR, CL, CO, MX, PE).
 */
export const RATE_CARD_REGIONS: ReadonlyArray<{ key: string; label: string; countries: readonly string[] }> = [
  {
    key: 'resto_latam',
    label: 'Resto de América Latina',
    countries: ['BO', 'CR', 'CU', 'DO', 'EC', 'GT', 'HN', 'HT', 'NI', 'PA', 'PR', 'PY', 'SV', 'UY', 'VE'],
  },
];

/** The markets the demo data covers: always listed on the screen, with "sin tarifa" when unknown. */
export const DEMO_MARKETS: readonly string[] = ['AR', 'MX', 'CO', 'CL', 'ES', 'BR', 'PE', 'US', 'resto_latam'];
