import { sql } from 'drizzle-orm';
import { rowsOf, type Queryable } from '../../db/sql';

/**
 * Meta's messaging limit: the unique WhatsApp users a business PORTFOLIO may reach outside a
 * customer-service window in a moving 24 h, shared by every number of the portfolio. It is
 * stored on each account of the portfolio (daily_limit: -1 unlimited, null unknown) and kept
 * equal on all of them; `portfolio key` = the portfolio id Meta gave, else the WABA id.
 */

export const UNLIMITED = -1;

const TIERS: Record<string, number> = {
  TIER_50: 50,
  TIER_250: 250,
  TIER_1K: 1_000,
  TIER_2K: 2_000,
  TIER_10K: 10_000,
  TIER_100K: 100_000,
  TIER_UNLIMITED: UNLIMITED,
};
const COUNTS = new Set([50, 250, 1_000, 2_000, 10_000, 100_000, UNLIMITED]);

/**
 * A limit in any shape Meta uses: a tier name (`whatsapp_business_manager_messaging_limit`,
 * the older `messaging_limit_tier`, `current_limit`) or a count (`max_daily_conversations_per_business`,
 * a number or a numeric string, -1 = unlimited). Null when absent, TIER_NOT_SET or unknown.
 */
export function parseDailyLimit(value: unknown): number | null {
  if (typeof value === 'number') return Number.isInteger(value) && (COUNTS.has(value) || value > 0) ? value : null;
  if (typeof value !== 'string') return null;
  const v = value.trim().toUpperCase();
  if (v in TIERS) return TIERS[v]!;
  if (/^-?\d{1,9}$/.test(v)) return parseDailyLimit(Number(v));
  return null;
}

/** The tier name shown beside the count (TIER_2K…); null for counts Meta has no tier for. */
export function tierOf(limit: number | null): string | null {
  if (limit === null) return null;
  return Object.entries(TIERS).find(([, n]) => n === limit)?.[0] ?? null;
}

/** SQL: the portfolio key of an account row aliased `a`. */
export const portfolioKeyOf = (alias: string) => sql.raw(`coalesce(${alias}.business_portfolio_id, ${alias}.business_account_id)`);

/**
 * Sets the limit on every account of the tenant's portfolio, unless a newer value is stored
 * (webhooks arrive out of order). `at` is Meta's time of the value.
 */
export async function setPortfolioLimit(
  db: Queryable,
  target: { userId: number; portfolioId: string },
  limit: number,
  at: Date,
): Promise<number> {
  const rows = await rowsOf<{ id: number }>(
    db,
    sql`update whatsapp_accounts a set daily_limit = ${limit}, daily_limit_at = ${at.toISOString()}::timestamptz,
          messaging_limit = coalesce(${tierOf(limit)}, a.messaging_limit), updated_at = now()
        where a.user_id = ${target.userId} and ${portfolioKeyOf('a')} = ${target.portfolioId}
          and (a.daily_limit_at is null or a.daily_limit_at <= ${at.toISOString()}::timestamptz)
        returning a.id`,
  );
  return rows.length;
}

export interface LimitUpdate {
  /** `entry.id`: the WABA the event is about. */
  wabaId: string;
  limit: number;
  at: Date;
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : null);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/**
 * The limit changes in a webhook POST: `business_capability_update`
 * (`max_daily_conversations_per_business`, or the removed `max_daily_conversation_per_phone`)
 * and `phone_number_quality_update` (`max_daily_conversations_per_business`, or the removed
 * `current_limit`). Anything else, or a value that is no limit, is ignored.
 */
export function limitOfChange(field: string, value: Json): number | null {
  if (field === 'business_capability_update') {
    return parseDailyLimit(value.max_daily_conversations_per_business) ?? parseDailyLimit(value.max_daily_conversation_per_phone);
  }
  if (field === 'phone_number_quality_update') {
    return parseDailyLimit(value.max_daily_conversations_per_business) ?? parseDailyLimit(value.current_limit);
  }
  return null;
}

export function readLimitUpdates(payload: unknown): LimitUpdate[] {
  const out: LimitUpdate[] = [];
  const root = obj(typeof payload === 'string' ? safeJson(payload) : payload);
  for (const entry of arr(root?.entry)) {
    const e = obj(entry);
    const wabaId = typeof e?.id === 'string' || typeof e?.id === 'number' ? String(e.id) : null;
    if (!e || !wabaId) continue;
    const seconds = Number(e.time);
    const at = Number.isFinite(seconds) && seconds > 0 ? new Date(seconds * 1000) : new Date();
    for (const change of arr(e.changes)) {
      const c = obj(change);
      const value = obj(c?.value);
      if (!c || !value) continue;
      const limit = typeof c.field === 'string' ? limitOfChange(c.field, value) : null;
      if (limit !== null) out.push({ wabaId, limit, at });
    }
  }
  return out;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/**
 * Applies the limit changes of stored webhook POSTs (the inbox's batch transaction). Every
 * tenant's numbers post to one URL, so a change reaches only accounts whose ownership of the
 * WABA was proven, and through them every account of the same tenant and portfolio.
 */
export async function applyLimitUpdate(db: Queryable, u: LimitUpdate): Promise<number> {
  let changed = 0;
  const portfolios = await rowsOf<{ user_id: number; portfolio_id: string }>(
    db,
    sql`select distinct a.user_id, ${portfolioKeyOf('a')} as portfolio_id from whatsapp_accounts a
        where a.business_account_id = ${u.wabaId} and a.owner_verified_at is not null`,
  );
  for (const p of portfolios) {
    changed += await setPortfolioLimit(db, { userId: Number(p.user_id), portfolioId: p.portfolio_id }, u.limit, u.at);
  }
  return changed;
}

/** Unique recipients each portfolio of the tenant reached in the moving 24 h, by portfolio key. */
export async function portfolioUsage(db: Queryable, userId: number): Promise<Map<string, number>> {
  const rows = await rowsOf<{ portfolio_id: string; used: number | string }>(
    db,
    sql`select portfolio_id, count(*)::int as used from portfolio_reach
        where user_id = ${userId} and reached_at > now() - interval '24 hours'
        group by portfolio_id`,
  );
  return new Map(rows.map((r) => [r.portfolio_id, Number(r.used)]));
}

/** The portfolio key of an account (the WABA when Meta did not name the portfolio). */
export const portfolioKey = (row: { businessPortfolioId: string | null; businessAccountId: string }) =>
  row.businessPortfolioId ?? row.businessAccountId;
