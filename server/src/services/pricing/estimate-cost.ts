import type { Db } from '../../db/client';
import { countryOfPhone } from '../../lib/phone-country';
import { loadRateCard } from './rate-card-service';
import { dayOf, normalizeCategory, RateIndex } from './rate-lookup';

export { countryOfPhone };

/**
 * The cost of sending one template to the recipients, counted by country, at Meta's rates in
 * the tenant's card: the rate in force on the day of `at` for the template's category and each
 * country, else the country's region (e.g. resto_latam). `rate: null` is "sin tarifa": those
 * recipients are counted in `unpriced` and left out of `total`. Nothing here assumes a message
 * is free; a free message is a rate of 0 in the card.
 */
export async function estimateCost(
  db: Db,
  userId: number,
  input: { category: string; at: Date; recipientsByCountry: Array<{ country: string | null; count: number }> },
): Promise<{
  currency: 'USD';
  total: number;
  priced: number;
  unpriced: number;
  byCountry: Array<{ country: string | null; count: number; rate: number | null }>;
}> {
  const card = await loadRateCard(db, userId);
  const index = new RateIndex(card.rates);
  const category = normalizeCategory(input.category);
  const day = dayOf(input.at);
  let micros = 0;
  let priced = 0;
  let unpriced = 0;
  const byCountry = input.recipientsByCountry.map(({ country, count }) => {
    const code = country ? country.trim().toUpperCase() : null;
    const rate = category ? (index.forCountry(category, code, day)?.usd_per_message ?? null) : null;
    if (rate === null) unpriced += count;
    else {
      priced += count;
      // Rates have at most 6 decimals: sum in millionths of a dollar so the total has no float noise.
      micros += Math.round(rate * 1_000_000) * count;
    }
    return { country, count, rate };
  });
  return { currency: 'USD', total: micros / 1_000_000, priced, unpriced, byCountry };
}
