import { sql } from 'drizzle-orm';
import type { CampaignCost, CostLine } from '@masivo/contract/campaigns';
import type { PricingCategory } from '@masivo/contract/pricing';
import type { Db } from '../../db/client';
import { isoOf, rowsOf } from '../../db/sql';
import { estimateCost } from '../pricing/estimate-cost';
import { loadRateCard } from '../pricing/rate-card-service';
import { normalizeCategory, RateIndex } from '../pricing/rate-lookup';
import { countryOfRecipient } from './audience-classifier';
import { attemptedCountriesSql, deliveredGroupsSql } from './campaign-cost-groups';
import { ROLLUP_JOB } from '../../db/rollup-mark';
import { asOfSql, EXACT_BELOW } from './campaign-rollups';

/** Meta's `pricing.type` values that cost nothing. */
export const FREE_PRICING_TYPES: readonly string[] = ['free_customer_service', 'free_entry_point'];

/**
 * The rate card's category for Meta's `pricing.category`: the three of the card as they are, and
 * `marketing_lite` (the Marketing Messages API) at the marketing rate, which is what Meta charges
 * for it. Any other category (authentication_international, service, referral_conversion…) has
 * no column in the card: "sin tarifa".
 */
function cardCategory(category: string | null): PricingCategory | null {
  if (!category) return null;
  if (category === 'marketing_lite') return 'marketing';
  return normalizeCategory(category);
}

/**
 * What one delivered message costs, from the `pricing` its webhook reported and the rate card
 * for the recipient's country on the send day: the status of the line it belongs to, and the
 * price in millionths of a dollar (rates have at most 6 decimals).
 */
export function priceOfMessage(
  index: RateIndex,
  m: { category: string | null; type: string | null; model: string | null; country: string | null; day: string },
): { status: CostLine['status']; micros: number } {
  const model = m.model?.toUpperCase() ?? null;
  if (!m.category && !m.type && !m.model) return { status: 'unpriceable', micros: 0 };
  if (model === 'CBP') return { status: 'unpriceable', micros: 0 };
  if (m.type && FREE_PRICING_TYPES.includes(m.type)) return { status: 'free', micros: 0 };
  if (m.type !== 'regular') return { status: 'unpriceable', micros: 0 };
  const category = cardCategory(m.category);
  const rate = category ? (index.forCountry(category, m.country, m.day)?.usd_per_message ?? null) : null;
  if (rate === null) return { status: 'no_rate', micros: 0 };
  return { status: 'priced', micros: Math.round(rate * 1_000_000) };
}

interface CountryGroup {
  country: string | null;
  sample: string | null;
  n: number | string;
}

interface Group {
  variant?: number | string | null;
  category: string | null;
  type: string | null;
  model: string | null;
  country: string | null;
  sample: string | null;
  day: string;
  n: number | string;
}

/**
 * The real cost of a campaign: its delivered messages (Meta charges per delivered
 * message) grouped by the `pricing` its status webhooks reported and by the recipient's
 * country (a line reads "Marketing · AR · Con cargo": the same category costs differently per
 * country), priced with the tenant's rate
 * card for the recipient's country on the send date. A free type costs 0; a category, country or
 * day without a rate is "sin tarifa" and counted apart, never guessed; a message without
 * pricing, without a type, or of the old per-conversation model (CBP) is counted as
 * unpriceable. `estimate` is the pre-flight's formula (template category × country at the start
 * date) over the recipients attempted, for the comparison the screen shows.
 */
export async function campaignCost(
  db: Db,
  userId: number,
  campaign: { id: number; templateCategory: string | null; startedAt: Date | null; deliveredCount?: number },
  opts: { fromRollupsAt?: number } = {},
): Promise<CampaignCost> {
  const { groups, countries, asOf } = await costSource(db, userId, campaign.id, opts.fromRollupsAt, campaign.deliveredCount === 0);
  const index = new RateIndex((await loadRateCard(db, userId)).rates);
  const lines = new Map<string, CostLine & { micros: number }>();
  const sums = { micros: 0, priced: 0, free: 0, no_rate: 0, unpriceable: 0 };
  for (const g of groups) {
    const n = Number(g.n);
    const country = g.country ?? (g.sample ? countryOfRecipient(g.sample) : null);
    const price = priceOfMessage(index, { ...g, country });
    const status = price.status;
    const micros = price.micros * n;
    sums[status] += n;
    sums.micros += micros;
    const key = `${g.category}|${country}|${g.type}|${g.model}|${status}`;
    const line = lines.get(key) ?? { category: g.category, country, type: g.type, model: g.model, count: 0, total: null, status, micros: 0 };
    line.count += n;
    line.micros += micros;
    line.total = status === 'priced' ? line.micros / 1_000_000 : status === 'free' ? 0 : null;
    lines.set(key, line);
  }
  return {
    currency: 'USD',
    total: sums.micros / 1_000_000,
    priced: sums.priced,
    free: sums.free,
    no_rate: sums.no_rate,
    unpriceable: sums.unpriceable,
    lines: [...lines.values()]
      .sort((a, b) => b.count - a.count || String(a.category).localeCompare(String(b.category)) || String(a.country).localeCompare(String(b.country)))
      .map(({ micros: _micros, ...line }) => line),
    estimate: await estimateOf(db, userId, campaign, countries),
    as_of: asOf,
  };
}

/**
 * What the campaign's cost is counted from: its delivered messages per what prices them and arm,
 * and its attempted recipients per country (campaign-cost-groups.ts). From the rollups when the
 * `campaign-rollups` job has folded a campaign of EXACT_BELOW recipients or more (`as_of`:
 * when they were last known current), so the screen of a sending campaign of a million
 * recipients, read every few seconds, costs a few rows; from the recipients otherwise (a small
 * campaign, exact at once, or a big one not folded yet). `nothingDelivered`: the campaign's
 * counter says no message was delivered yet (a start's answer, a scheduled campaign just
 * begun), so there is no delivered group to look for among its recipients.
 */
async function costSource(
  db: Db,
  userId: number,
  campaignId: number,
  fromRollupsAt = EXACT_BELOW,
  nothingDelivered = false,
): Promise<{ groups: Group[]; countries: CountryGroup[]; asOf: string | null }> {
  const [folded] = await rowsOf<{ as_of: string }>(
    db,
    sql`select ${isoOf(asOfSql)} as as_of
        from campaign_rollups r join campaigns c on c.id = r.campaign_id
        left join campaign_rollup_passes p on p.name = ${ROLLUP_JOB}
        where r.campaign_id = ${campaignId} and r.user_id = ${userId}::int and r.costs_folded
          and c.total_recipients >= ${fromRollupsAt}::int`,
  );
  if (folded) {
    const [groups, countries] = await Promise.all([
      rowsOf<Group>(db, sql`select variant, category, type, model, country, sample, day, n from campaign_rollup_costs where campaign_id = ${campaignId}`),
      rowsOf<CountryGroup>(db, sql`select country, sample, n from campaign_rollup_countries where campaign_id = ${campaignId}`),
    ]);
    return { groups, countries, asOf: folded.as_of };
  }
  const [groups, countries] = await Promise.all([
    nothingDelivered ? [] : rowsOf<Group>(db, deliveredGroupsSql(campaignId, userId)),
    rowsOf<CountryGroup>(db, attemptedCountriesSql(campaignId, userId)),
  ]);
  return { groups, countries, asOf: null };
}

/**
 * A split test's real cost per arm ("Prueba A/B"): each arm's delivered messages priced as
 * `campaignCost` prices them (USD, arm index → total; only "Con cargo" lines add up).
 */
export async function costPerVariant(db: Db, userId: number, campaignId: number): Promise<Map<number, number>> {
  const { groups } = await costSource(db, userId, campaignId);
  const index = new RateIndex((await loadRateCard(db, userId)).rates);
  const micros = new Map<number, number>();
  for (const g of groups) {
    if (g.variant === null || g.variant === undefined) continue;
    const country = g.country ?? (g.sample ? countryOfRecipient(g.sample) : null);
    const price = priceOfMessage(index, { ...g, country });
    micros.set(Number(g.variant), (micros.get(Number(g.variant)) ?? 0) + price.micros * Number(g.n));
  }
  return new Map([...micros].map(([variant, m]) => [variant, m / 1_000_000]));
}

async function estimateOf(
  db: Db,
  userId: number,
  campaign: { id: number; templateCategory: string | null; startedAt: Date | null },
  countries: CountryGroup[],
): Promise<CampaignCost['estimate']> {
  if (!countries.length) return null;
  const byCountry = new Map<string | null, number>();
  for (const r of countries) {
    const country = r.country ?? (r.sample ? countryOfRecipient(r.sample) : null);
    byCountry.set(country, (byCountry.get(country) ?? 0) + Number(r.n));
  }
  const cost = await estimateCost(db, userId, {
    category: campaign.templateCategory || 'MARKETING',
    at: campaign.startedAt ?? new Date(),
    recipientsByCountry: [...byCountry].map(([country, count]) => ({ country, count })),
  });
  return { total: cost.total, priced: cost.priced, unpriced: cost.unpriced };
}
