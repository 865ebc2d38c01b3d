import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import {
  applyClaimOutcomes,
  applyDeliveryFacts,
  type ClaimOutcome,
  type DeliveryFact,
} from '../../services/campaigns/recipient-transitions';
import { pgCode, retryOnConflict } from '../../services/campaigns/sql';

/**
 * Collects a sender's results in memory and writes them in a few set-based statements per
 * flush (every ~100 ms), which is what lets one number reach 1,000 msg/s. Until written, a
 * result lives only here; if the process dies first, its rows are still `sending` and a
 * webhook or the recovery settles them, so nothing is ever sent twice.
 */
export class ResultWriter {
  private accepted: DeliveryFact[] = [];
  private outcomes: ClaimOutcome[] = [];
  private acceptedCount = 0;
  private lastAcceptedAt = 0;
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly db: Db,
    private readonly owner: string,
    private readonly whatsappAccountId: number,
    private readonly onError: (err: unknown) => void,
  ) {}

  accept(recipientId: number, wamid: string) {
    const now = Date.now();
    this.accepted.push({ recipientId, wamid, sentAt: new Date(now).toISOString(), fromSender: true });
    this.acceptedCount++;
    this.lastAcceptedAt = now;
  }

  settle(outcome: ClaimOutcome) {
    this.outcomes.push(outcome);
  }

  get size() {
    return this.accepted.length + this.outcomes.length;
  }

  /** Writes everything collected so far; concurrent calls share one write. */
  flush(): Promise<void> {
    if (this.flushing) return this.flushing.then(() => (this.size ? this.flush() : undefined));
    if (!this.size && !this.acceptedCount) return Promise.resolve();
    this.flushing = this.write().finally(() => {
      this.flushing = null;
    });
    return this.flushing;
  }

  private async write() {
    const accepted = this.accepted;
    const outcomes = this.outcomes;
    const count = this.acceptedCount;
    const lastAt = this.lastAcceptedAt;
    this.accepted = [];
    this.outcomes = [];
    this.acceptedCount = 0;
    try {
      if (accepted.length) await retryOnConflict(() => applyDeliveryFacts(this.db, accepted));
    } catch (err) {
      this.accepted.unshift(...accepted);
      this.outcomes.unshift(...outcomes);
      this.acceptedCount += count;
      this.onError(err);
      return;
    }
    try {
      if (outcomes.length) await retryOnConflict(() => applyClaimOutcomes(this.db, this.owner, outcomes));
    } catch (err) {
      this.outcomes.unshift(...outcomes);
      this.acceptedCount += count;
      this.onError(err);
      return;
    }
    if (count) {
      try {
        await retryOnConflict(() => this.recordDailyCount(count, lastAt));
      } catch (err) {
        // The account was deleted meanwhile: nothing left to count for.
        if (pgCode(err) === '23503') return;
        this.acceptedCount += count;
        this.onError(err);
      }
    }
  }

  /** Accepted sends per account and day (the accounts screen's daily count) and the last send time. */
  private async recordDailyCount(count: number, lastAt: number) {
    await this.db.execute(sql`insert into whatsapp_message_counts (whatsapp_account_id, day, sent)
      values (${this.whatsappAccountId}, current_date, ${count})
      on conflict (whatsapp_account_id, day) do update set sent = whatsapp_message_counts.sent + excluded.sent`);
    await this.db.execute(sql`update whatsapp_accounts
      set last_message_sent_at = greatest(coalesce(last_message_sent_at, 'epoch'::timestamptz), ${new Date(lastAt).toISOString()}::timestamptz)
      where id = ${this.whatsappAccountId}`);
  }
}
