import { PRICING_CATEGORIES, type RateCard, type RateCardLineError } from '@masivo/contract/pricing';
import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { isoOf, jsonParam, rowsOf, type Queryable } from '../../db/sql';
import { DEFAULT_RATE_CARD, DEMO_MARKETS, RATE_CARD_REGIONS } from './default-rate-card';
import { parseRateCardCsv, rateCardToCsv, sortRates } from './rate-card-csv';
import { dayOf, isRegion, marketLabel, RateIndex, type CardRate } from './rate-lookup';

/** A tenant's card: their own rows once they uploaded one, else the shipped default. */
export interface TenantCard {
  isDefault: boolean;
  updatedAt: string | null;
  rates: CardRate[];
}

export async function loadRateCard(db: Queryable, userId: number): Promise<TenantCard> {
  const [card] = await rowsOf<{ updated_at: string }>(db, sql`select ${isoOf(sql`updated_at`)} as updated_at from rate_cards where user_id = ${userId}`);
  if (!card) return { isDefault: true, updatedAt: null, rates: DEFAULT_RATE_CARD.map((r) => ({ ...r })) };
  const rows = await rowsOf<{
    category: CardRate['category'];
    market: string;
    effective_from: string;
    usd_per_message: string | number | null;
    source: string | null;
    source_date: string | null;
  }>(
    db,
    sql`select category, market, to_char(effective_from, 'YYYY-MM-DD') as effective_from, usd_per_message, source,
               to_char(source_date, 'YYYY-MM-DD') as source_date
          from rate_card_rates where user_id = ${userId}`,
  );
  return {
    isDefault: false,
    updatedAt: card.updated_at,
    rates: rows.map((r) => ({ ...r, usd_per_message: r.usd_per_message === null ? null : Number(r.usd_per_message) })),
  };
}

/** The card as the "Tarifas" screen shows it, with the rate in force on `now` per market and category. */
export function describeCard(card: TenantCard, now: Date): RateCard {
  const today = dayOf(now);
  const index = new RateIndex(card.rates);
  const markets = [...new Set([...DEMO_MARKETS, ...card.rates.map((r) => r.market)])];
  const current = (market: string) =>
    Object.fromEntries(
      PRICING_CATEGORIES.map((c) => {
        const r = index.own(c, market, today);
        return [c, r && { usd_per_message: r.usd_per_message, effective_from: r.effective_from, source: r.source, source_date: r.source_date }];
      }),
    ) as RateCard['markets'][number]['current'];
  return {
    currency: 'USD',
    is_default: card.isDefault,
    updated_at: card.updatedAt,
    today,
    markets: markets
      .map((m) => ({ market: m, label: marketLabel(m), is_region: isRegion(m), current: current(m) }))
      .sort((a, b) => Number(a.is_region) - Number(b.is_region) || a.label.localeCompare(b.label, 'es')),
    rates: sortRates(card.rates).map((r) => ({ ...r, label: marketLabel(r.market) })),
    regions: RATE_CARD_REGIONS.map((r) => ({ key: r.key, label: r.label, countries: [...r.countries] })),
  };
}

export type UploadResult = { ok: true; card: TenantCard } | { ok: false; errors: RateCardLineError[] };

export function createRateCardService(db: Db) {
  return {
    async get(userId: number, now = new Date()): Promise<RateCard> {
      return describeCard(await loadRateCard(db, userId), now);
    },

    async csv(userId: number): Promise<string> {
      return rateCardToCsv((await loadRateCard(db, userId)).rates);
    },

    /**
     * Replaces the tenant's card with the uploaded one, whole, in one transaction: a file with
     * any bad line changes nothing. Concurrent uploads of one tenant queue on its rate_cards row.
     */
    async upload(userId: number, csv: string): Promise<UploadResult> {
      const parsed = parseRateCardCsv(csv);
      if (!parsed.ok) return parsed;
      await db.transaction(async (tx) => {
        await tx.execute(sql`insert into rate_cards (user_id) values (${userId})
                             on conflict (user_id) do update set updated_at = now()`);
        await tx.execute(sql`delete from rate_card_rates where user_id = ${userId}`);
        await tx.execute(sql`
          insert into rate_card_rates (user_id, category, market, effective_from, usd_per_message, source, source_date)
          select ${userId}, r.category, r.market, r.effective_from::date, r.usd_per_message, r.source, r.source_date::date
            from jsonb_to_recordset(${jsonParam(parsed.rates)})
              as r(category text, market text, effective_from text, usd_per_message numeric, source text, source_date text)`);
      });
      return { ok: true, card: await loadRateCard(db, userId) };
    },

    /** Back to the shipped card (the tenant's own rows are deleted with it). */
    async reset(userId: number): Promise<void> {
      await db.execute(sql`delete from rate_cards where user_id = ${userId}`);
    },
  };
}
