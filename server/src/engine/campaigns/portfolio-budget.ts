import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { preparedRows, rowsOf, type Queryable } from '../../db/sql';
import { portfolioKeyOf, UNLIMITED } from '../../services/whatsapp-accounts/messaging-limit';
import { claimRecipients, claimUnlimited, type ClaimedRecipient } from './claim';

/**
 * Meta's messaging limit, enforced at claim time. The limit counts unique people reached by
 * ALL numbers of a business portfolio in a moving 24 h, so every claim (whatever the number,
 * whatever the process) stamps its recipients in `portfolio_reach`, and a claim on a limited
 * portfolio starts only as many NEW people as the limit has left; someone reached within
 * 24 h costs nothing. The budget is read once per claim batch (one indexed count), and
 * claims on one limited portfolio are serialized by a transaction-scoped advisory lock, so
 * two numbers (or two workers) can never both spend the last places.
 *
 * Stamping at claim time, before the request, is conservative: a row claimed and then given
 * back (pause, stop) still counts for 24 h, so the console never goes over the limit.
 * An unknown limit (the number was never tested) is not enforced, only recorded.
 */

export interface BudgetedClaim {
  claimed: ClaimedRecipient[];
  /** Set when the limit is used up and due rows wait: milliseconds until a place frees up. */
  waitMs: number | null;
}

interface BudgetRow {
  user_id: number;
  portfolio_id: string;
  daily_limit: number | null;
  waiting: boolean;
}

/**
 * Campaigns whose last claim found a limit to enforce: they go straight to the budgeted path.
 * Only a hint for choosing the path; each path reads the limit again.
 */
const limitedCampaigns = new Set<number>();

export async function claimWithinBudget(db: Db, campaignId: number, owner: string, limit: number, lane?: number | null): Promise<BudgetedClaim> {
  // The common case, no limit to enforce: one statement (claim.ts).
  if (!limitedCampaigns.has(campaignId)) {
    const claimed = await claimUnlimited(db, campaignId, owner, limit, lane);
    if (claimed) return { claimed, waitMs: null };
    limitedCampaigns.add(campaignId);
  }
  const [b] = await preparedRows<BudgetRow>(
    db,
    sql`select c.user_id, ${portfolioKeyOf('a')} as portfolio_id, a.daily_limit, c.limit_wait_until is not null as waiting
        from campaigns c join whatsapp_accounts a on a.id = c.whatsapp_account_id where c.id = ${campaignId}`,
  );
  if (!b) return { claimed: await claimRecipients(db, campaignId, owner, limit, undefined, lane), waitMs: null };
  const userId = Number(b.user_id);
  const portfolioId = b.portfolio_id;
  const cap = b.daily_limit === null ? null : Number(b.daily_limit);
  if (cap === null || cap === UNLIMITED) {
    limitedCampaigns.delete(campaignId);
    const claimed = await claimRecipients(db, campaignId, owner, limit, { userId, portfolioId, maxNew: null }, lane);
    if (b.waiting) await clearLimitWait(db, campaignId);
    return { claimed, waitMs: null };
  }
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`portfolio-reach:${userId}:${portfolioId}`}))`);
    const used = await usedPlaces(db, tx, { userId, portfolioId, cap, batch: limit });
    const remaining = Math.max(0, cap - used);
    const claimed = await claimRecipients(tx as Db, campaignId, owner, limit, { userId, portfolioId, maxNew: remaining }, lane);
    if (claimed.length || remaining > 0) {
      if (b.waiting) await clearLimitWait(tx, campaignId);
      return { claimed, waitMs: null };
    }
    const [due] = await rowsOf(
      tx,
      sql`select 1 from campaign_recipients where campaign_id = ${campaignId} and status = 'pending' and next_attempt_at <= now() limit 1`,
    );
    if (!due) return { claimed, waitMs: null };
    // The oldest person of the window drops out first: one place frees up then.
    const [resume] = await rowsOf<{ at: Date | string; wait_ms: number | string }>(
      tx,
      sql`select w.at, extract(epoch from (w.at - now())) * 1000 as wait_ms from (
            select coalesce(min(reached_at) + interval '24 hours', now() + interval '1 minute') as at from portfolio_reach
            where user_id = ${userId} and portfolio_id = ${portfolioId} and reached_at > now() - interval '24 hours') w`,
    );
    await tx.execute(sql`update campaigns set limit_wait_until = ${isoOf(resume!.at)}::timestamptz
      where id = ${campaignId} and limit_wait_until is distinct from ${isoOf(resume!.at)}::timestamptz`);
    return { claimed, waitMs: Math.max(1_000, Number(resume!.wait_ms)) };
  });
}

const isoOf = (v: Date | string) => (v instanceof Date ? v : new Date(v)).toISOString();

/** An exact count of the window is reused this long, plus the stamps made since it. */
const RECOUNT_MS = 5_000;

interface Usage {
  used: number;
  /** Database time of the exact count (ISO, rounded down): later stamps are added to `used`. */
  since: string;
  countedAt: number;
  cap: number;
}

/** Per database handle (one per process), per tenant and portfolio. */
const usageCache = new WeakMap<object, Map<string, Usage>>();

/**
 * Unique people the portfolio reached in the moving 24 h, called under the portfolio's lock.
 * Counting a window of 100,000 people on every claim would cost tens of milliseconds, so an
 * exact count is reused for a few seconds and only the stamps made since are added: every
 * later claim on a limited portfolio stamps under the same lock, after the count, with the
 * clock time, so none is missed. That sum is an upper bound (someone stamped again is counted
 * twice, people leaving the window are not subtracted): safe, never over the limit. Close to
 * the limit, or when the cache is old, the count is exact again.
 */
async function usedPlaces(
  handle: object,
  tx: Queryable,
  p: { userId: number; portfolioId: string; cap: number; batch: number },
): Promise<number> {
  let cache = usageCache.get(handle);
  if (!cache) usageCache.set(handle, (cache = new Map()));
  const key = `${p.userId}:${p.portfolioId}`;
  const cached = cache.get(key);
  if (cached && cached.cap === p.cap && performance.now() - cached.countedAt < RECOUNT_MS) {
    const [fresh] = await rowsOf<{ n: number }>(
      tx,
      sql`select count(*)::int as n from portfolio_reach
          where user_id = ${p.userId} and portfolio_id = ${p.portfolioId} and reached_at > ${cached.since}::timestamptz`,
    );
    const upper = cached.used + Number(fresh?.n ?? 0);
    if (p.cap - upper > 2 * p.batch) return upper;
  }
  const [exact] = await rowsOf<{ used: number; at: Date | string }>(
    tx,
    sql`select count(*)::int as used, clock_timestamp() as at from portfolio_reach
        where user_id = ${p.userId} and portfolio_id = ${p.portfolioId} and reached_at > now() - interval '24 hours'`,
  );
  const used = Number(exact?.used ?? 0);
  cache.set(key, { used, since: isoOf(exact!.at), countedAt: performance.now(), cap: p.cap });
  return used;
}

async function clearLimitWait(db: Queryable, campaignId: number) {
  await db.execute(sql`update campaigns set limit_wait_until = null where id = ${campaignId} and limit_wait_until is not null`);
}

/** Stamps older than the window are useless: removed in small batches by the scheduler. */
export async function pruneReach(db: Queryable, batch = 5_000): Promise<number> {
  const rows = await rowsOf(
    db,
    sql`delete from portfolio_reach where ctid = any(array(
          select ctid from portfolio_reach where reached_at < now() - interval '25 hours' limit ${batch}))
        returning 1`,
  );
  return rows.length;
}
