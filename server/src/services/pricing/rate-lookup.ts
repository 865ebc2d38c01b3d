import { PRICING_CATEGORIES, type PricingCategory } from '@masivo/contract/pricing';
import { getCountries } from 'libphonenumber-js/max';
import { RATE_CARD_REGIONS } from './default-rate-card';

/** One rate as the lookup needs it (the shipped card and a tenant's rows share this shape). */
export interface CardRate {
  category: PricingCategory;
  market: string;
  effective_from: string;
  usd_per_message: number | null;
  source: string | null;
  source_date: string | null;
}

const COUNTRIES = new Set<string>(getCountries());
const REGION_BY_KEY = new Map(RATE_CARD_REGIONS.map((r) => [r.key, r]));
const REGION_OF_COUNTRY = new Map(RATE_CARD_REGIONS.flatMap((r) => r.countries.map((c) => [c, r.key] as const)));
const COUNTRY_NAMES = new Intl.DisplayNames(['es'], { type: 'region' });

export const isRegion = (market: string) => REGION_BY_KEY.has(market);

/** A market as written in the CSV: an ISO country in any case, or a region key; null if neither. */
export function normalizeMarket(raw: string): string | null {
  const v = raw.trim();
  if (REGION_BY_KEY.has(v.toLowerCase())) return v.toLowerCase();
  const upper = v.toUpperCase();
  return /^[A-Z]{2}$/.test(upper) && COUNTRIES.has(upper) ? upper : null;
}

/** The market's Spanish name: "Argentina", "Resto de América Latina". */
export function marketLabel(market: string): string {
  const region = REGION_BY_KEY.get(market);
  if (region) return region.label;
  try {
    return COUNTRY_NAMES.of(market) ?? market;
  } catch {
    return market;
  }
}

export function normalizeCategory(raw: string): PricingCategory | null {
  const v = raw
    .trim()
    .toLowerCase()
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '');
  if ((PRICING_CATEGORIES as readonly string[]).includes(v)) return v as PricingCategory;
  if (v === 'utilidad') return 'utility';
  if (v === 'autenticacion') return 'authentication';
  return null;
}

/** The calendar day (UTC) of an instant: rates change at the start of a day. */
export const dayOf = (at: Date) => at.toISOString().slice(0, 10);

/**
 * A card indexed for lookups: the rate in force on a day for a category and a market, with the
 * fallback from a country to its region when the country has no rate of its own on that day.
 */
export class RateIndex {
  private readonly byKey = new Map<string, CardRate[]>();

  constructor(rates: readonly CardRate[]) {
    for (const r of rates) {
      const key = `${r.category}|${r.market}`;
      const list = this.byKey.get(key) ?? [];
      list.push(r);
      this.byKey.set(key, list);
    }
    for (const list of this.byKey.values()) list.sort((a, b) => a.effective_from.localeCompare(b.effective_from));
  }

  /** The market's own row in force on `day` (YYYY-MM-DD), or null when it has none yet. */
  own(category: PricingCategory, market: string, day: string): CardRate | null {
    const list = this.byKey.get(`${category}|${market}`);
    if (!list) return null;
    let found: CardRate | null = null;
    for (const r of list) {
      if (r.effective_from <= day) found = r;
      else break;
    }
    return found;
  }

  /**
   * The row that prices a message to `country` on `day`: the country's own, else its region's.
   * A null result, or a row whose rate is null, is "sin tarifa".
   */
  forCountry(category: PricingCategory, country: string | null, day: string): CardRate | null {
    if (!country) return null;
    const own = this.own(category, country, day);
    if (own) return own;
    const region = REGION_OF_COUNTRY.get(country);
    return region ? this.own(category, region, day) : null;
  }
}
