import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import {
  applyClaimOutcomes,
  applyDeliveryFacts,
  type ClaimOutcome,
  type DeliveryFact,
} from '../../services/campaigns/recipient-transitions';
import { jsonParam, retryOnConflict } from '../../db/sql';
import { MARKETING_STOPPED } from '../../integrations/whatsapp/send-errors';
import { ROUTE_MARKETING, ROUTE_MESSAGES, type SendRoute } from '../../integrations/whatsapp/marketing-messages';
import { blacklistStoppedRecipients } from '../../services/blacklist/marketing-opt-out';

/**
 * Collects the results of every sender of this process in memory and writes them in a few
 * set-based statements per flush (every ~100 ms), whatever the number of senders: what lets
 * numbers reach 1,000 msg/s, and the embedded database keep up. Until written, a result lives
 * only here; if the process dies first, its rows are still `sending` and a webhook or the
 * recovery settles them, so nothing is ever sent twice.
 */
export class ResultWriter {
  private accepted: DeliveryFact[] = [];
  private outcomes: ClaimOutcome[] = [];
  /** Accepted rows and their route, while a flush holds a marketing-route acceptance (recordRoutes). */
  private routes: Array<{ id: number; route: SendRoute }> = [];
  private marketingAccepted = false;
  /** Accepted rows Meta holds for quality assessment ("Retenido por Meta"). */
  private heldIds: number[] = [];
  /** Ambiguous requests: the row and the time its request left (ISO). */
  private dispatches: Array<{ id: number; at: string }> = [];
  /** Accepted sends per WhatsApp account since the last flush, and the time of the last one. */
  private perAccount = new Map<number, { count: number; lastAt: number }>();
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly db: Db,
    private readonly owner: string,
    private readonly onError: (err: unknown) => void,
  ) {}

  accept(whatsappAccountId: number, recipientId: number, wamid: string, route: SendRoute = ROUTE_MESSAGES) {
    const now = Date.now();
    this.routes.push({ id: recipientId, route });
    if (route === ROUTE_MARKETING) this.marketingAccepted = true;
    this.accepted.push({ recipientId, wamid, sentAt: new Date(now).toISOString(), fromSender: true });
    const entry = this.perAccount.get(whatsappAccountId) ?? { count: 0, lastAt: 0 };
    entry.count++;
    entry.lastAt = now;
    this.perAccount.set(whatsappAccountId, entry);
  }

  /** Meta accepted the row but holds it (`held_for_quality_assessment`): not a failure. */
  held(recipientId: number) {
    this.heldIds.push(recipientId);
  }

  /**
   * The request for this claimed row left at `at` and its outcome is unknown: recovery may
   * mark it unknown after the grace period (see markStaleInFlightUnknown).
   */
  dispatched(recipientId: number, at: Date) {
    this.dispatches.push({ id: recipientId, at: at.toISOString() });
  }

  settle(outcome: ClaimOutcome) {
    this.outcomes.push(outcome);
  }

  get size() {
    return this.accepted.length + this.outcomes.length + this.dispatches.length + this.heldIds.length;
  }

  /** Writes everything collected so far; concurrent calls share one write. */
  flush(): Promise<void> {
    if (this.flushing) return this.flushing.then(() => (this.size ? this.flush() : undefined));
    if (!this.size && !this.perAccount.size) return Promise.resolve();
    this.flushing = this.write().finally(() => {
      this.flushing = null;
    });
    return this.flushing;
  }

  private async write() {
    const accepted = this.accepted;
    const outcomes = this.outcomes;
    const perAccount = this.perAccount;
    const dispatches = this.dispatches;
    // Routes are written only by a flush that holds a marketing-route acceptance: a null route
    // reads as /messages, so a number that sends no marketing template pays no statement for it.
    const routes = this.marketingAccepted ? this.routes : [];
    this.routes = [];
    this.marketingAccepted = false;
    this.dispatches = [];
    this.accepted = [];
    this.outcomes = [];
    this.perAccount = new Map();
    const putBack = (what: { accepted?: boolean; outcomes?: boolean }) => {
      if (what.accepted) this.accepted.unshift(...accepted);
      if (what.outcomes) this.outcomes.unshift(...outcomes);
      for (const [id, e] of perAccount) {
        const now = this.perAccount.get(id) ?? { count: 0, lastAt: 0 };
        this.perAccount.set(id, { count: now.count + e.count, lastAt: Math.max(now.lastAt, e.lastAt) });
      }
    };
    try {
      if (dispatches.length) await retryOnConflict(() => this.recordDispatches(dispatches));
    } catch (err) {
      // Without the stamp the row is only recovered once this process's lease is gone.
      this.dispatches.unshift(...dispatches);
      this.onError(err);
    }
    try {
      if (accepted.length) await retryOnConflict(() => applyDeliveryFacts(this.db, accepted));
    } catch (err) {
      putBack({ accepted: true, outcomes: true });
      this.onError(err);
      return;
    }
    try {
      if (outcomes.length) await retryOnConflict(() => applyClaimOutcomes(this.db, this.owner, outcomes));
    } catch (err) {
      putBack({ outcomes: true });
      this.onError(err);
      return;
    }
    if (routes.length) await retryOnConflict(() => this.recordRoutes(routes)).catch(this.onError);
    const held = this.heldIds;
    this.heldIds = [];
    if (held.length) {
      try {
        await retryOnConflict(() => this.recordHeld(held));
      } catch (err) {
        this.heldIds.unshift(...held);
        this.onError(err);
      }
    }
    // 131050 on send: the person stopped marketing messages; blacklisted (marketing-opt-out.ts).
    const stopped = outcomes.filter((o) => o.kind === 'failed' && o.code === MARKETING_STOPPED).map((o) => o.recipientId);
    if (stopped.length) await retryOnConflict(() => blacklistStoppedRecipients(this.db, stopped)).catch(this.onError);
    if (perAccount.size) {
      try {
        await retryOnConflict(() => this.recordDailyCounts(perAccount));
      } catch (err) {
        // Statistics only: a failure (an account deleted meanwhile) is not worth a retry loop.
        this.onError(err);
      }
    }
  }

  /** The route that carried each accepted row (campaign_recipients.route, 0047). */
  private async recordRoutes(routes: Array<{ id: number; route: SendRoute }>) {
    await this.db.execute(sql`with v as (
        select * from jsonb_to_recordset(${jsonParam(routes)}) as v(id bigint, route text)
      )
      update campaign_recipients r set route = v.route
      from v
      where r.id = any(array(select id from v)) and r.id = v.id and r.route is distinct from v.route`);
  }

  private async recordHeld(ids: number[]) {
    await this.db.execute(sql`update campaign_recipients set held_at = now()
      where id in (select (jsonb_array_elements_text(${jsonParam(ids)}))::bigint) and held_at is null`);
  }

  private async recordDispatches(dispatches: Array<{ id: number; at: string }>) {
    await this.db.execute(sql`with v as (
        select * from jsonb_to_recordset(${jsonParam(dispatches)}) as v(id bigint, at timestamptz)
      )
      update campaign_recipients r set dispatched_at = v.at
      from v
      where r.id = any(array(select id from v)) and r.id = v.id and r.claim_owner = ${this.owner} and r.status = 'sending'`);
  }

  /** Accepted sends per account and day (the accounts screen's daily count) and the last send time. */
  private async recordDailyCounts(perAccount: Map<number, { count: number; lastAt: number }>) {
    const input = [...perAccount].map(([id, e]) => ({ id, n: e.count, at: new Date(e.lastAt).toISOString() }));
    await this.db.execute(sql`with v as (
        select * from jsonb_to_recordset(${jsonParam(input)}) as v(id int, n int, at timestamptz)
      ),
      counted as (
        insert into whatsapp_message_counts (whatsapp_account_id, day, sent)
        select v.id, current_date, v.n from v join whatsapp_accounts a on a.id = v.id
        on conflict (whatsapp_account_id, day) do update set sent = whatsapp_message_counts.sent + excluded.sent
        returning 1
      )
      update whatsapp_accounts a
      set last_message_sent_at = greatest(coalesce(a.last_message_sent_at, 'epoch'::timestamptz), v.at)
      from v where a.id = v.id`);
  }
}
