import type { SendOutcome, WhatsAppMessenger } from '../../integrations/whatsapp/messenger';
import { ROUTE_MARKETING, ROUTE_MESSAGES, type SendRoute } from '../../integrations/whatsapp/marketing-messages';
import { systemicPauseReason } from '../../integrations/whatsapp/send-errors';
import { isBsuid } from '../../lib/bsuid';
import { AppError } from '../../lib/errors';
import type { Metrics } from '../../lib/metrics';
import { activeSpanContext, failSpan, inSpan, recipientContext, SpanKind, startSpan, tracingOn, withActiveSpan, type Span } from '../../lib/tracing';
import { buildSendComponents } from '../../services/variables/render';
import type { SendingAccount } from '../../services/whatsapp-accounts/account-secrets';
import type { ButtonTarget } from './button-payload';
import type { CallbackTarget } from './callback-data';
import type { ClaimedRecipient } from './claim';
import type { CampaignEngineOptions } from './options';
import { Pacer } from './pacer';
import type { ResultWriter } from './result-writer';
import { MAINTENANCE, retryDecision, THROUGHPUT } from './retry-policy';
import { variantOf, type ActiveCampaign } from './sender-campaigns';
import { MarketingRouter } from './marketing-route';
import { Wakeable } from './wakeable';

export const BLACKLISTED = 'Número en la lista negra';
export const FREQUENCY_CAPPED = 'Tope de frecuencia: ya recibió el máximo de mensajes de marketing del período';
export const AUTHENTICATION_TO_BSUID = 'Las plantillas de autenticación no se pueden enviar a un BSUID (se necesita el teléfono)';
/** Meta's codes for a send of a paused (132015) or disabled (132016) template. */
const TEMPLATE_PAUSED = 132015;
const TEMPLATE_DISABLED = 132016;
/**
 * 131057: the number is in maintenance (a throughput upgrade takes up to a minute). Every send
 * would fail the same way, so the whole number waits this long before one more try.
 */
export const MAINTENANCE_HOLD_MS = 15_000;
const INACTIVE_REASON = 'La cuenta de WhatsApp está desactivada';
/**
 * A pacer held this long (Meta unreachable) gives its queued rows back: claimed rows must
 * not wait in memory for minutes, where nobody else can tell them from lost requests.
 */
const RELEASE_QUEUE_AFTER_HOLD_MS = 2_000;
export const TOKEN_UNREADABLE_REASON = 'Token de WhatsApp ilegible: vuelve a ingresarlo en la cuenta y reanuda la campaña.';
const QUALITY_RED_REASON = 'La calidad del número es baja (RED): Meta puede bloquearlo. Revisa la calidad antes de reanudar.';

export interface SenderStats {
  requests: number;
  accepted: number;
  ambiguous: number;
}

export type PauseTarget = { campaignIds: number[] } | { whatsappAccountId: number };

/**
 * Everything the sender reads and writes besides results (those go through the writer), bound
 * to its one number and to this process's claim owner. Built in index.ts from the claim,
 * campaign, blacklist, account and transition functions; the sender imports none of them.
 */
export interface SenderStore {
  readonly accountId: number;
  /** The number with its decrypted token; throws if it is gone or the token does not decrypt. */
  loadAccount(): Promise<SendingAccount>;
  /** The saved token no longer decrypts (APP_SECRET changed): no retry can help. */
  tokenUnreadable(): Promise<boolean>;
  /** The number's sending campaigns, header media uploaded; unusable ones in `refused` with the reason. */
  activeCampaigns(previous: Map<number, ActiveCampaign>): Promise<{
    active: Map<number, ActiveCampaign>;
    refused: Array<{ campaignId: number; reason: string }>;
  }>;
  /** Commits up to `limit` due recipients as `sending` for this process (`lane`: only this number's). */
  claim(campaignId: number, limit: number, lane?: number | null): Promise<ClaimedRecipient[]>;
  /** Milliseconds until the campaign's next recipient (of the lane) is due; null when none is pending. */
  nextDueAt(campaignId: number, lane?: number | null): Promise<number | null>;
  /**
   * The phone keys among `phoneKeys` on the campaign's blacklist (or opted out), and those that
   * reached the tenant's frequency cap: one question per claimed batch.
   */
  excluded(campaign: ActiveCampaign, phoneKeys: string[]): Promise<{ blacklisted: Set<string>; capped: Set<string> }>;
  /**
   * Pauses sending campaigns with a reason the operator sees (campaign-transitions.ts); `code`, the
   * Graph error that caused it, restricts the number when it says Meta restricted it.
   */
  pause(target: PauseTarget, reason: string, code?: number | null): Promise<number[]>;
  /**
   * Meta refused a send because it paused (132015) or disabled (132016) the template: the
   * template is marked so and every campaign sending it pauses until Meta brings it back
   * (template-risk.ts). Returns the paused campaign ids.
   */
  templateRefused(templateId: number, code: number): Promise<number[]>;
  /**
   * Meta refused the Marketing Messages API for this number: recorded on the number (shown on
   * its card); it sends by /messages until Meta reports the portfolio onboarded again.
   */
  routeRefused?(reason: string): Promise<void>;
  /** The HMAC-tagged `biz_opaque_callback_data` status webhooks echo back. */
  signCallback(target: CallbackTarget): string;
  /** The signed payload of a quick-reply button (the opt-out reply). */
  signButton(target: ButtonTarget): string;
}

/** Opens the number's messenger; its pool size follows the number's rate, known once the account is read. */
export type OpenMessenger = (connections: number) => WhatsAppMessenger;

/**
 * Sends the campaigns of ONE WhatsApp number, in the one process holding its lease.
 *
 * A small batch is claimed (committed as `sending`) just ahead of the pacer, each request
 * goes out at its paced slot with the recipient's id as callback data, and results are
 * written in batches. Several campaigns on the number take turns and share its rate.
 */
export class AccountSender {
  readonly stats: SenderStats = { requests: 0, accepted: 0, ambiguous: 0 };
  private account!: SendingAccount;
  private accountLoadedAt = 0;
  /** Set when a campaign joins: the account is re-read before the next send. */
  private accountStale = true;
  private messenger!: WhatsAppMessenger;
  private pacer!: Pacer;
  private readonly queue: ClaimedRecipient[] = [];
  /** Ids queued or on the wire: a row claimed again meanwhile (an operator's retry) is refused. */
  private readonly holding = new Set<number>();
  private readonly active = new Map<number, ActiveCampaign>();
  /** /messages or /marketing_messages per send (marketing-route.ts). */
  private readonly router = new MarketingRouter();
  /** Rows the marketing route refused: their next request goes by /messages. */
  private readonly viaMessages = new Set<number>();
  /** Campaign id → time before which it has nothing due. */
  private readonly idleUntil = new Map<number, number>();
  /** Campaigns this process just paused: ignored until the database agrees. */
  private readonly pausedHere = new Map<number, number>();
  private rotation = 0;
  private inFlight = 0;
  private maxInFlight = 8;
  private readonly inFlightDone = new Wakeable();
  private readonly wakeable = new Wakeable();
  private refilling: Promise<void> | null = null;
  private refreshedAt = -Infinity;
  private refreshing: Promise<void> | null = null;
  private stopping = false;
  private loop: Promise<void> | null = null;
  private transportFailures = 0;
  /** Local time until which this process may trust its lease (see leases.ts). */
  trustedUntil = 0;
  lastActiveAt = performance.now();
  readonly accountId: number;

  constructor(
    private readonly store: SenderStore,
    private readonly openMessenger: OpenMessenger,
    private readonly writer: ResultWriter,
    private readonly opts: CampaignEngineOptions,
    private readonly log: (msg: string, err?: unknown) => void,
    private readonly metrics: Metrics,
  ) {
    this.accountId = store.accountId;
  }

  async start(trustedUntil: number): Promise<void> {
    this.trustedUntil = trustedUntil;
    try {
      await this.loadAccount();
    } catch (err) {
      // APP_SECRET changed since the token was saved: no retry can help, the owner must
      // enter it again. Paused with the reason instead of "Enviando" forever.
      if (await this.store.tokenUnreadable()) {
        await this.store.pause({ whatsappAccountId: this.accountId }, TOKEN_UNREADABLE_REASON);
      }
      throw err;
    }
    // Sized for the configured rate (the ceiling), so a throughput upgrade needs no new pool.
    const connections = Math.min(512, Math.max(8, Math.ceil((this.account.configuredRatePerSecond ?? this.account.ratePerSecond) * 0.5)));
    this.maxInFlight = connections;
    this.messenger = this.openMessenger(connections);
    this.pacer = new Pacer(this.account.ratePerSecond, undefined, this.opts.pacingJitterMs);
    this.loop = this.run().catch((err) => this.log('sender loop crashed', err));
  }

  /**
   * A campaign changed in this process (pause, start, delete). Its sends stop before this
   * returns (queued rows go back to pending); the re-read brings it back if still sending.
   */
  campaignChanged(campaignId: number): void {
    if (this.active.delete(campaignId)) this.releaseQueued((item) => item.campaignId === campaignId);
    this.pausedHere.delete(campaignId);
    this.refreshedAt = -Infinity;
    void this.refreshCampaigns();
    this.wakeable.wake();
  }

  /** The rate the number is paced at now (min of the configured rate and Meta's level). */
  get pacingRate(): number {
    return this.pacer?.ratePerSecond ?? 0;
  }

  /** How much longer the number's sends are held (130429, 131057, Meta unreachable). */
  get heldForMs(): number {
    return this.pacer?.heldForMs() ?? 0;
  }

  get hasWork(): boolean {
    return this.active.size > 0 || this.queue.length > 0 || this.inFlight > 0;
  }

  /** Stops sending; waits for requests on the wire; gives claimed-but-unsent rows back. */
  async stop(): Promise<void> {
    if (this.stopping) return this.loop ?? undefined;
    this.stopping = true;
    this.wakeable.wake();
    await this.loop;
    await this.refilling;
    const deadline = performance.now() + this.opts.responseTimeoutMs + 1_000;
    while (this.inFlight > 0 && performance.now() < deadline) await this.inFlightDone.sleep(50);
    this.releaseQueued(() => true);
    await this.writer.flush();
    await this.messenger?.close().catch(() => undefined);
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      if (performance.now() >= this.trustedUntil) {
        this.log(`lease of WhatsApp account ${this.accountId} not renewed in time; pausing its sends`);
        await this.wakeable.sleep(100);
        continue;
      }
      if (performance.now() - this.refreshedAt >= this.opts.refreshMs) await this.refreshCampaigns();
      if (this.accountStale || performance.now() - this.accountLoadedAt >= this.opts.accountRefreshMs) await this.refreshAccount();

      const held = this.pacer.heldForMs();
      if (held > RELEASE_QUEUE_AFTER_HOLD_MS) {
        this.releaseQueued(() => true);
        await this.wakeable.sleep(Math.min(held, 1_000));
        continue;
      }

      if (!this.queue.length) {
        await this.refill();
        if (!this.queue.length) {
          this.pacer.idle();
          await this.wakeable.sleep(this.idleSleepMs());
          continue;
        }
      } else if (this.queue.length < this.lowWater()) {
        void this.refill();
      }

      if (this.inFlight >= this.maxInFlight) {
        await this.inFlightDone.sleep(this.opts.responseTimeoutMs);
        continue;
      }
      const wait = this.pacer.delay();
      if (wait > 0) {
        await this.wakeable.sleep(wait);
        continue;
      }
      // A campaign just joined: the account's state (active, quality) is checked first.
      if (this.accountStale) continue;
      // The awaits above may have outlived the lease or a stop: checked again at the last moment.
      if (this.stopping || performance.now() >= this.trustedUntil) continue;
      const item = this.queue.shift()!;
      const campaign = this.active.get(item.campaignId);
      if (!campaign) {
        this.holding.delete(item.id);
        this.writer.settle({ recipientId: item.id, kind: 'released' });
        continue;
      }
      this.dispatch(item, campaign);
    }
  }

  private dispatch(item: ClaimedRecipient, campaign: ActiveCampaign) {
    // Meta sends authentication templates to phone numbers only: a BSUID recipient is skipped.
    if (campaign.authentication && isBsuid(item.phone)) {
      this.holding.delete(item.id);
      this.writer.settle({ recipientId: item.id, kind: 'skipped', message: AUTHENTICATION_TO_BSUID });
      return;
    }
    // A split test's recipient gets its arm's template and mapping (loaded with the campaign).
    const variant = variantOf(campaign, item.variant);
    let components;
    try {
      components = buildSendComponents(variant.template, variant.mappings, item.contact, {
        headerMediaId: variant.headerMediaId,
        quickReplyPayload: (index) => this.store.signButton({ campaignId: campaign.id, index }),
        params: item.params,
      });
    } catch (err) {
      // A mapping removed while sending: every message of the campaign would fail the same way.
      const reason = err instanceof AppError ? err.message : 'No se pudieron completar las variables de la plantilla';
      this.holding.delete(item.id);
      this.writer.settle({ recipientId: item.id, kind: 'released' });
      void this.pause({ campaignIds: [campaign.id] }, reason);
      return;
    }
    const paced = this.pacer.take();
    // From here the request may reach Meta: only now is the row in flight.
    const dispatchedAt = new Date();
    this.inFlight++;
    this.stats.requests++;
    this.lastActiveAt = performance.now();
    const message = {
      phoneNumberId: this.account.phoneNumberId,
      accessToken: this.account.accessToken,
      to: item.phone,
      templateName: variant.templateName,
      language: variant.language,
      components,
      bizOpaque: this.store.signCallback({ campaignId: campaign.id, recipientId: item.id }),
      route: this.viaMessages.delete(item.id) ? ROUTE_MESSAGES : this.router.route(this.account, campaign),
    };
    const onWritten = () => this.pacer.sent(paced);
    let again = false;
    // With tracing on, the send is a span in the recipient's trace and the Graph call its child.
    const span = tracingOn() ? this.sendSpan(item) : null;
    (span ? withActiveSpan(span, () => this.messenger.send(message, onWritten)) : this.messenger.send(message, onWritten))
      .then((outcome) => {
        if (span) endSendSpan(span, outcome);
        this.pacer.answered(paced);
        again = this.routeRefused(item, campaign, message.route, outcome);
        if (!again) this.record(item, outcome, dispatchedAt, message.route);
      })
      .catch((err) => this.log('send failed unexpectedly', err))
      .finally(() => {
        // A message refused by the marketing route is queued again (first) and stays ours.
        if (!again) this.holding.delete(item.id);
        this.inFlight--;
        this.inFlightDone.wake();
      });
  }

  /** The span of one send of one recipient (lib/tracing.ts, `recipientContext`). */
  private sendSpan(item: ClaimedRecipient): Span | null {
    return startSpan('campaign.send', {
      kind: SpanKind.PRODUCER,
      parent: recipientContext(item.campaignId, item.id),
      links: item.claimSpan ? [{ context: item.claimSpan }] : undefined,
      attributes: {
        'campaign.id': item.campaignId,
        'recipient.id': item.id,
        'send.attempt': item.attempts,
        'messaging.system': 'whatsapp',
        'messaging.operation.type': 'send',
        'messaging.destination.name': this.account.phoneNumberId,
      },
    });
  }

  /**
   * Meta refused the marketing route (marketing-messages.ts): the refused message goes again,
   * first in the queue, by /messages (Meta did not accept it, so it cannot arrive twice); the
   * recipient never fails for it. A refusal saying the route is not available moves the number.
   */
  private routeRefused(item: ClaimedRecipient, campaign: ActiveCampaign, route: SendRoute, outcome: SendOutcome): boolean {
    if (route !== ROUTE_MARKETING || outcome.kind === 'ok' || outcome.kind === 'ambiguous') return false;
    const verdict = this.router.refused(campaign, outcome.code, outcome.message);
    if (!verdict) return false;
    this.metrics.sendOutcome(this.accountId, 'retry', outcome.code);
    if (verdict.closeNumber) {
      this.log(`WhatsApp account ${this.accountId}: Meta refused the marketing route (${outcome.code}); sending by /messages`);
      void this.store.routeRefused?.(verdict.closeNumber).catch((err) => this.log('could not record the marketing route refusal', err));
    }
    this.viaMessages.add(item.id);
    this.queue.unshift(item);
    return true;
  }

  private record(item: ClaimedRecipient, outcome: SendOutcome, dispatchedAt: Date, route: SendRoute = ROUTE_MESSAGES) {
    this.metrics.sendOutcome(this.accountId, outcome.kind, 'code' in outcome ? outcome.code : null);
    if (outcome.kind !== 'retry' || outcome.code !== null) this.transportFailures = 0;
    switch (outcome.kind) {
      case 'ok':
        this.stats.accepted++;
        this.writer.accept(this.accountId, item.id, outcome.wamid, route);
        if (outcome.held) this.writer.held(item.id);
        return;
      case 'permanent':
        this.writer.settle({ recipientId: item.id, kind: 'failed', code: outcome.code, message: outcome.message });
        return;
      case 'retry': {
        // The pacer already keeps under the rate; Meta counting one too many means jitter on
        // the way: a short breath is enough (the recipient itself waits about a second).
        if (outcome.code === THROUGHPUT) this.pacer.hold(Math.max(20, 5_000 / this.pacer.ratePerSecond));
        if (outcome.code === MAINTENANCE) {
          // The whole number is in maintenance: hold it, and read its level again afterwards.
          this.pacer.hold(MAINTENANCE_HOLD_MS);
          this.accountStale = true;
        }
        if (outcome.code === null) {
          // Meta unreachable: slow the whole number down, not just this recipient.
          this.transportFailures++;
          this.pacer.hold(Math.min(30_000, 250 * 2 ** Math.min(this.transportFailures, 7)));
        }
        const decision = retryDecision(outcome.code, item.attempts);
        this.writer.settle(
          decision.retry
            ? { recipientId: item.id, kind: 'retry', delayMs: decision.delayMs, code: outcome.code, message: outcome.message }
            : { recipientId: item.id, kind: 'failed', code: outcome.code, message: outcome.message },
        );
        return;
      }
      case 'systemic': {
        this.writer.settle({ recipientId: item.id, kind: 'requeue', code: outcome.code, message: outcome.message });
        const campaign = this.active.get(item.campaignId);
        if (campaign && (outcome.code === TEMPLATE_PAUSED || outcome.code === TEMPLATE_DISABLED)) {
          void this.pauseTemplate(variantOf(campaign, item.variant).templateId, outcome.code);
          return;
        }
        const target = outcome.scope === 'account' ? { whatsappAccountId: this.accountId } : { campaignIds: [item.campaignId] };
        void this.pause(target, systemicPauseReason(outcome.code, outcome.reason), outcome.code);
        return;
      }
      case 'ambiguous':
        // It may have been sent: never resend. The status webhook (matched by the callback
        // data) settles it, or recovery marks it unknown after the grace period.
        this.stats.ambiguous++;
        // Only now does the row need its dispatch time: every other outcome settles it, and
        // while it is on the wire this process's live lease keeps recovery away from it.
        this.writer.dispatched(item.id, dispatchedAt);
        this.log(`recipient ${item.id}: ${outcome.message}`);
        return;
    }
  }

  /** Pauses campaigns for a systemic reason; this process stops sending them right away. */
  private async pause(target: PauseTarget, reason: string, code?: number | null) {
    const ids = 'campaignIds' in target ? target.campaignIds : [...this.active.keys()];
    for (const id of ids) {
      this.active.delete(id);
      this.pausedHere.set(id, performance.now() + 5_000);
    }
    this.releaseQueued((item) => ids.includes(item.campaignId) || 'whatsappAccountId' in target);
    try {
      await this.store.pause(target, reason, code);
    } catch (err) {
      this.log('could not pause campaigns', err);
    }
  }

  /** Every campaign of this number on the template stops now; the store pauses them all. */
  private async pauseTemplate(templateId: number, code: number) {
    const ids = [...this.active.values()]
      .filter((c) => c.templateId === templateId || c.variants?.some((v) => v.templateId === templateId))
      .map((c) => c.id);
    for (const id of ids) {
      this.active.delete(id);
      this.pausedHere.set(id, performance.now() + 5_000);
    }
    this.releaseQueued((item) => ids.includes(item.campaignId));
    try {
      await this.store.templateRefused(templateId, code);
    } catch (err) {
      this.log('could not pause the campaigns of a refused template', err);
    }
  }

  private releaseQueued(which: (item: ClaimedRecipient) => boolean) {
    for (let i = this.queue.length - 1; i >= 0; i--) {
      if (which(this.queue[i])) {
        this.holding.delete(this.queue[i].id);
        this.writer.settle({ recipientId: this.queue[i].id, kind: 'released' });
        this.queue.splice(i, 1);
      }
    }
  }

  /**
   * Claims stay just ahead of the pacer (about 0.1 s of sends): every claimed row is "in
   * flight" and becomes unknown if this process dies, so the fewer the better.
   */
  private lowWater() {
    return Math.max(2, Math.ceil(this.pacer.ratePerSecond * 0.05));
  }

  private batchSize() {
    return Math.min(200, Math.max(4, Math.ceil(this.pacer.ratePerSecond * 0.1)));
  }

  private idleSleepMs() {
    const now = performance.now();
    let soonest = this.opts.refreshMs;
    for (const until of this.idleUntil.values()) soonest = Math.min(soonest, Math.max(5, until - now));
    return soonest;
  }

  /** Claims the next batch from the next campaign (in turn) that has something due. */
  private refill(): Promise<void> {
    this.refilling ??= this.claimNext()
      .catch((err) => this.log('claim failed', err))
      .finally(() => {
        this.refilling = null;
      });
    return this.refilling;
  }

  private async claimNext() {
    const ids = [...this.active.keys()];
    const now = performance.now();
    for (let i = 0; i < ids.length && !this.stopping; i++) {
      const campaign = this.active.get(ids[(this.rotation + i) % ids.length]);
      if (!campaign || (this.idleUntil.get(campaign.id) ?? 0) > now) continue;
      const claimed = await inSpan(
        'campaign.claim',
        { attributes: () => ({ 'campaign.id': campaign.id, 'messaging.destination.name': this.account.phoneNumberId }) },
        async (span) => {
          const rows = await this.store.claim(campaign.id, this.batchSize(), campaign.lane);
          if (span) {
            span.setAttribute('claim.count', rows.length);
            const claimSpan = activeSpanContext();
            for (const row of rows) row.claimSpan = claimSpan;
          }
          return rows;
        },
      );
      if (!claimed.length) {
        const due = await this.store.nextDueAt(campaign.id, campaign.lane);
        const wait = due === null ? this.opts.refreshMs : Math.min(Math.max(due, 5), this.opts.refreshMs * 4);
        this.idleUntil.set(campaign.id, performance.now() + wait);
        continue;
      }
      this.rotation = (this.rotation + i + 1) % Math.max(1, ids.length);
      let keep: ClaimedRecipient[];
      try {
        keep = await this.dropBlacklisted(campaign, claimed);
      } catch (err) {
        // Not checked, not sent: give them back rather than leave them in flight.
        for (const item of claimed) this.writer.settle({ recipientId: item.id, kind: 'released' });
        throw err;
      }
      // Paused or stopped while we were claiming: give the rows back at once.
      if (!this.active.has(campaign.id) || this.stopping) {
        for (const item of keep) this.writer.settle({ recipientId: item.id, kind: 'released' });
        return;
      }
      for (const item of keep) {
        // Still ours from an earlier claim (queued or on the wire): that copy settles it.
        if (this.holding.has(item.id)) continue;
        this.holding.add(item.id);
        this.queue.push(item);
      }
      return;
    }
  }

  /** The blacklist is checked again right before sending: numbers added since the freeze are skipped. */
  private async dropBlacklisted(campaign: ActiveCampaign, claimed: ClaimedRecipient[]): Promise<ClaimedRecipient[]> {
    const { blacklisted: blocked, capped } = await this.store.excluded(campaign, claimed.map((c) => c.phoneKey));
    if (!blocked.size && !capped.size) return claimed;
    const keep: ClaimedRecipient[] = [];
    for (const item of claimed) {
      if (blocked.has(item.phoneKey)) this.writer.settle({ recipientId: item.id, kind: 'skipped', message: BLACKLISTED });
      else if (capped.has(item.phoneKey)) this.writer.settle({ recipientId: item.id, kind: 'skipped', message: FREQUENCY_CAPPED });
      else keep.push(item);
    }
    return keep;
  }

  private refreshCampaigns(): Promise<void> {
    this.refreshing ??= this.readCampaigns()
      .catch((err) => this.log('campaign refresh failed', err))
      .finally(() => {
        this.refreshing = null;
      });
    return this.refreshing;
  }

  private async readCampaigns() {
    this.refreshedAt = performance.now();
    const { active, refused } = await this.store.activeCampaigns(this.active);
    const now = performance.now();
    for (const [id, until] of this.pausedHere) {
      if (until < now || !active.has(id)) this.pausedHere.delete(id);
      else active.delete(id);
    }
    for (const { campaignId, reason } of refused) await this.pause({ campaignIds: [campaignId] }, reason);
    const gone = [...this.active.keys()].filter((id) => !active.has(id));
    if ([...active.keys()].some((id) => !this.active.has(id))) this.accountStale = true;
    this.active.clear();
    for (const [id, c] of active) this.active.set(id, c);
    if (gone.length) this.releaseQueued((item) => gone.includes(item.campaignId));
    for (const id of this.idleUntil.keys()) if (!active.has(id)) this.idleUntil.delete(id);
    if (this.active.size) this.lastActiveAt = performance.now();
  }

  private async loadAccount() {
    this.accountStale = false;
    this.account = await this.store.loadAccount();
    this.router.accountRead(this.account);
    this.accountLoadedAt = performance.now();
  }

  /** Rate changes apply at once; an account switched off or rated RED pauses its campaigns. */
  private async refreshAccount() {
    try {
      await this.loadAccount();
    } catch (err) {
      this.log('account refresh failed', err);
      this.accountStale = false;
      this.accountLoadedAt = performance.now();
      return;
    }
    this.pacer.setRate(this.account.ratePerSecond);
    if (!this.active.size) return;
    if (!this.account.isActive) await this.pause({ whatsappAccountId: this.accountId }, INACTIVE_REASON);
    else if ((this.account.qualityRating ?? '').toUpperCase() === 'RED') {
      await this.pause({ whatsappAccountId: this.accountId }, QUALITY_RED_REASON);
    }
  }
}

/** The send's outcome on its span: Meta's message id when accepted, the failure otherwise. */
function endSendSpan(span: Span, outcome: SendOutcome) {
  span.setAttribute('send.outcome', outcome.kind);
  if (outcome.kind === 'ok') span.setAttribute('messaging.message.id', outcome.wamid);
  else failSpan(span, { message: outcome.message }, 'code' in outcome && outcome.code !== null ? String(outcome.code) : outcome.kind);
  span.end();
}
