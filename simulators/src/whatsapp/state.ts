// Everything a running WhatsApp simulator knows. The HTTP routes, the programmatic API and the
// /__control endpoints all act on this object.
import { SlidingWindow } from '../shared/sliding-window';
import { graphError, type GraphError } from './errors';
import { SendFaults } from './faults';
import { MediaStore } from './media';
import { MessageLog } from './message-log';
import { MetaRules, type Identity } from './meta-rules';
import { clampThroughput, makeNumber, recordThroughputError, type PhoneNumber } from './phone-numbers';
import type { SendPlan } from './send-validation';
import { componentOf, isRejectedByReview, TemplateStore, type Template } from './templates';
import type { AutoReplies, LatencyJitter, MetaRulesConfig, NumberInput, RecipientBehaviour, RecordedMessage, TemplateInput, WhatsAppConfig, WhatsAppFault } from './types';
import { MarketingMessagesSim, ttlProblem } from './marketing-messages';
import { envelope, messagesValue, WebhookDispatcher, type StatusEvent } from './webhooks';

const PAIR_WINDOW_MS = 6_000;
const SERVICE_WINDOW_MS = 24 * 3600_000;
const HOUR_MS = 3600_000;

/** Monotonic wall-clock milliseconds: pacing checks must not jump when the system clock does. */
export function nowMs(): number {
  return performance.timeOrigin + performance.now();
}

/** The WhatsApp id Meta reports for a number: Mexican mobiles lose the old '1' after +52. */
export function waIdOf(digits: string): string {
  return digits.length === 13 && digits.startsWith('521') ? `52${digits.slice(3)}` : digits;
}

/** What a recipient writes back, in Spanish, when auto-replies are on. */
const AUTO_REPLY_TEXTS = ['Me interesa, ¿me dan más información?', 'Gracias', '¿Cuánto cuesta?', '¿Hasta cuándo vale la promo?', 'Hola, ¿tienen envío?'];

/** A reply to one of the simulator's messages: text, or a tap on a quick-reply button of its template. */
export interface ReplyInput {
  /** The message answered (a wamid the simulator returned), or else the last message sent to `phone`. */
  wamid?: string;
  phone?: string;
  /** With `phone`: only messages sent from this number. */
  phoneNumberId?: string;
  text?: string;
  /** The quick-reply button tapped: its text, or its index among the template's buttons. */
  button?: string | number;
  /** The payload the tap carries; must be the one the message sent for that button (Meta echoes it). */
  payload?: string;
}

export interface InboundInput {
  phoneNumberId: string;
  from: string;
  text?: string;
  /** `context.id`: the message answered. */
  context?: string;
  /** A quick-reply tap: `type: button`. */
  button?: { payload: string; text: string };
}

export type AcceptResult =
  | { ok: true; wamid: string; waId: string; userId: string | null; held: boolean }
  | { ok: false; error: GraphError };

export class WhatsAppState {
  readonly numbers = new Map<string, PhoneNumber>();
  readonly templates = new TemplateStore();
  readonly log = new MessageLog();
  readonly faults = new SendFaults();
  readonly media = new MediaStore();
  readonly webhooks: WebhookDispatcher;
  readonly rules: MetaRules;
  /** The Marketing Messages API: onboarding, its send rules, TTL, clicks, analytics. */
  readonly mm = new MarketingMessagesSim();
  private behaviours = new Map<string, RecipientBehaviour>();
  /** Recent send times per (number, recipient), for 131056. Swept every few seconds. */
  private pairTimes = new Map<string, number[]>();
  private lastPairSweep = 0;
  /** Last inbound message per customer, for the 24 h customer-service window. */
  private inboundAt = new Map<string, number>();
  private management = new Map<string, SlidingWindow>();
  private approvalTimers = new Set<NodeJS.Timeout>();
  private replyTimers = new Set<NodeJS.Timeout>();

  constructor(readonly config: WhatsAppConfig) {
    this.webhooks = new WebhookDispatcher(config);
    this.rules = new MetaRules(this.webhooks, this.templates);
  }

  addNumber(input: NumberInput): PhoneNumber {
    const n = makeNumber(input);
    this.numbers.set(n.phoneNumberId, n);
    this.rules.attach(n);
    // A number declared without a tier shows its portfolio's; a declared tier is kept until setMessagingLimit.
    if (input.messagingLimit === undefined) n.messagingLimit = this.rules.portfolioUsage(n.businessId).tier;
    return n;
  }

  number(phoneNumberId: string): PhoneNumber {
    const n = this.numbers.get(phoneNumberId);
    if (!n) throw new Error(`no phone number ${phoneNumberId}`);
    return n;
  }

  isWaba(id: string): boolean {
    for (const n of this.numbers.values()) if (n.wabaId === id) return true;
    return false;
  }

  /** A number's token is valid for every number of its WABA and for the WABA itself. */
  tokenValidForWaba(wabaId: string, token: string | undefined): boolean {
    if (!token) return false;
    for (const n of this.numbers.values()) if (n.wabaId === wabaId && n.token === token) return true;
    return false;
  }

  tokenKnown(token: string | undefined): boolean {
    if (!token) return false;
    for (const n of this.numbers.values()) if (n.token === token) return true;
    return false;
  }

  /** Counts a management call; false when the WABA is over its hourly limit. */
  countManagementCall(wabaId: string): boolean {
    let w = this.management.get(wabaId);
    if (!w) {
      w = new SlidingWindow(HOUR_MS);
      this.management.set(wabaId, w);
    }
    const now = nowMs();
    if (w.count(now) >= this.config.managementHourlyLimit) return false;
    w.add(now);
    return true;
  }

  addTemplate(t: TemplateInput): Template {
    if (!t?.wabaId || !t.name || !t.language) throw new Error('wabaId, name and language are required');
    const problem = ttlProblem(t.category ?? '', t.message_send_ttl_seconds);
    if (problem) throw new Error(String((problem.body as any).error.error_data.details));
    const { message_send_ttl_seconds: ttl, ...rest } = t;
    const added = this.templates.add(rest);
    if (ttl !== undefined) this.mm.ttl.set(added.id, ttl);
    return added;
  }

  setThroughput(phoneNumberId: string, perSecond: number): void {
    const n = this.number(phoneNumberId);
    if (n.coexistence) throw new Error('coexistence numbers are fixed at 20 messages per second');
    n.throughput = clampThroughput(perSecond);
  }

  /** The number's portfolio limit: posts business_capability_update and phone_number_quality_update. */
  setMessagingLimit(p: { businessId?: string; phoneNumberId?: string; limit: number }): void {
    const businessId = p.businessId ?? (p.phoneNumberId ? this.number(p.phoneNumberId).businessId : undefined);
    if (!businessId) throw new Error('businessId or phoneNumberId is required');
    this.rules.setMessagingLimit(businessId, Number(p.limit), [...this.numbers.values()]);
  }

  /** A user of a number, by phone (digits) or by BSUID. */
  identifyUser(phoneNumberId: string, user: string): Identity {
    const n = this.number(phoneNumberId);
    const raw = String(user ?? '');
    if (/^[A-Z]{2}\./.test(raw)) return this.rules.identify(n, { bsuid: raw });
    const digits = raw.replace(/\D/g, '');
    if (!digits) throw new Error('user (a phone or a BSUID) is required');
    return this.rules.identify(n, { waId: waIdOf(digits) });
  }

  setMarketingPreference(p: { phoneNumberId: string; user: string; value: 'stop' | 'resume' }): Promise<void> {
    return this.rules.setMarketingPreference(this.number(p.phoneNumberId), this.identifyUser(p.phoneNumberId, p.user), p.value);
  }

  templateFor(p: { wabaId: string; name: string; language?: string }): Template {
    const t = this.templates.list(p.wabaId).find((x) => x.name === p.name && (p.language === undefined || x.language === p.language));
    if (!t) throw new Error(`no template ${p.name}${p.language ? ` (${p.language})` : ''} in WABA ${p.wabaId}`);
    return t;
  }

  upgradeThroughput(phoneNumberId: string, durationMs?: number): Promise<void> {
    return this.rules.upgradeThroughput(this.number(phoneNumberId), durationMs);
  }

  setRecipientBehaviour(phoneDigits: string, b: RecipientBehaviour): void {
    if (!['not_on_whatsapp', 'opted_out', 'pair_limit', 'offline', 'ok'].includes(b)) throw new Error(`unknown behaviour ${String(b)}`);
    const digits = String(phoneDigits).replace(/\D/g, '');
    if (b === 'ok') this.behaviours.delete(digits);
    else this.behaviours.set(digits, b);
  }

  injectFault(f: WhatsAppFault): void {
    this.faults.add(f);
  }

  configure(p: Partial<WhatsAppConfig> & { rejectTemplatesMatching?: RegExp | string | null; rules?: Partial<MetaRulesConfig> }): void {
    const c = this.config;
    this.rules.configure(p.rules);
    for (const key of ['deliveryRate', 'readRate', 'failRate'] as const) {
      const v = p[key];
      if (v === undefined) continue;
      if (typeof v !== 'number' || v < 0 || v > 1) throw new Error(`${key} must be between 0 and 1`);
      c[key] = v;
    }
    for (const key of ['latencyMs', 'statusDelayMs', 'approvalDelayMs', 'webhookBatchMax', 'pairLimit', 'managementHourlyLimit', 'failCode'] as const) {
      const v = p[key];
      if (v === undefined) continue;
      if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new Error(`${key} must be a non-negative number`);
      c[key] = v;
    }
    for (const key of ['duplicateWebhooks', 'reorderWebhooks', 'webhookRetry'] as const) {
      if (p[key] !== undefined) c[key] = Boolean(p[key]);
    }
    for (const key of ['templateReadRates', 'templateBlockRates'] as const) {
      if (p[key] === undefined) continue;
      const rates = p[key] ?? {};
      for (const [name, v] of Object.entries(rates)) {
        if (typeof v !== 'number' || v < 0 || v > 1) throw new Error(`${key}.${name} must be between 0 and 1`);
      }
      c[key] = { ...rates };
    }
    if (p.latencyJitter !== undefined) c.latencyJitter = checkedJitter(p.latencyJitter);
    if (p.autoReplies !== undefined) c.autoReplies = checkedAutoReplies(p.autoReplies);
    if (p.webhookUrl !== undefined) c.webhookUrl = p.webhookUrl ? new URL(p.webhookUrl).toString() : null;
    if (p.appSecret !== undefined) c.appSecret = String(p.appSecret);
    if (p.rejectTemplatesMatching !== undefined) {
      const r = p.rejectTemplatesMatching;
      c.rejectTemplatesMatching = r === null || r === '' ? null : r instanceof RegExp ? r : new RegExp(r);
    }
  }

  /** How long this send travels before it arrives (and is counted): see LatencyJitter. */
  arrivalDelayMs(): number {
    const j = this.config.latencyJitter;
    if (!j) return 0;
    return Math.min(j.capMs, j.baseMs - j.tailMeanMs * Math.log(1 - Math.random()));
  }

  /** Recipient checks, throughput, then records the message and schedules its status webhooks. */
  accept(number: PhoneNumber, plan: SendPlan, arrivedAt: number = nowMs()): AcceptResult {
    // Meta counts a send against the number's throughput when it ARRIVES, not when its checks
    // are done: a busy receiver would otherwise time a send later than it arrived.
    const now = arrivedAt;
    const who = plan.bsuid !== null ? this.rules.identify(number, { bsuid: plan.bsuid }) : this.rules.identify(number, { waId: waIdOf(plan.digits) });
    const digits = plan.bsuid !== null ? (who.waId ?? '') : plan.digits;
    const waId = who.key;
    const behaviour = (digits && (this.behaviours.get(digits) ?? this.behaviours.get(waId))) || 'ok';
    if (digits && digits === number.displayPhoneNumber) return { ok: false, error: graphError(131021) };
    if (this.rules.isUpgrading(number)) return { ok: false, error: graphError(131057) };
    if (plan.kind === 'template' && this.rules.blocked(number.wabaId)) return { ok: false, error: graphError(131031) };
    const windowOpen = now - (this.inboundAt.get(waId) ?? -Infinity) <= SERVICE_WINDOW_MS;
    if (plan.kind === 'text' && !windowOpen) {
      return { ok: false, error: graphError(131047) };
    }
    const pairKey = `${number.phoneNumberId}|${waId}`;
    const recent = this.recentPairSends(pairKey, now);
    if (behaviour === 'pair_limit' || recent.length >= this.config.pairLimit) return { ok: false, error: graphError(131056) };
    // Rejected sends never count: only accepted messages fill the throughput window.
    const inWindow = number.window.count(now);
    if (inWindow >= number.throughput) {
      recordThroughputError(number, { at: now, checkedAfterMs: nowMs() - now, inWindow });
      return { ok: false, error: graphError(130429) };
    }
    number.window.add(now);
    recent.push(now);
    this.pairTimes.set(pairKey, recent);

    const wamid = this.log.record({
      phoneNumberId: number.phoneNumberId,
      to: plan.bsuid ?? plan.digits,
      template: plan.template?.name ?? '',
      language: plan.language,
      bizOpaque: plan.bizOpaque,
      componentsJson: plan.componentsJson,
      at: now,
    });
    if (plan.template) this.mm.record(wamid, plan.template.id, plan.route ?? 'messages', who.waId ?? who.bsuid);
    const failCode = this.asyncFailure(number, plan, who, behaviour, windowOpen);
    this.scheduleStatuses(number, wamid, who, plan, failCode, windowOpen, behaviour === 'offline');
    const held = plan.template !== null && this.rules.held(plan.template, wamid);
    return { ok: true, wamid, waId: who.waId ?? '', userId: plan.bsuid !== null ? who.bsuid : null, held };
  }

  /** The code of the single `failed` status an accepted message gets, or null when it goes through. */
  private asyncFailure(number: PhoneNumber, plan: SendPlan, who: Identity, behaviour: RecipientBehaviour, windowOpen: boolean): number | null {
    if (behaviour === 'not_on_whatsapp') return 131026;
    if (behaviour === 'opted_out') return 131050;
    const marketing = plan.template?.category === 'MARKETING';
    if (marketing && this.rules.isMarketingStopped(who.key)) return 131050;
    // Marketing inside an open customer-service window does not count against the per-user limit.
    if (marketing && !windowOpen) {
      if (this.rules.config.usMarketingBlocked && who.waId?.startsWith('1')) return 131049;
      if (this.rules.marketingLimited(who.key)) return 131049;
    }
    if (Math.random() < this.config.failRate) return this.config.failCode;
    // Only business-initiated messages outside a service window count as unique users reached.
    if (plan.kind === 'template' && !windowOpen) {
      if (this.rules.overPortfolioLimit(number, who.key)) return this.rules.config.portfolioLimitCode;
      this.rules.countReached(number, who.key);
    }
    return null;
  }

  private recentPairSends(key: string, now: number): number[] {
    if (now - this.lastPairSweep > PAIR_WINDOW_MS) {
      for (const [k, times] of this.pairTimes) if (now - times[times.length - 1] >= PAIR_WINDOW_MS) this.pairTimes.delete(k);
      this.lastPairSweep = now;
    }
    return (this.pairTimes.get(key) ?? []).filter((t) => now - t < PAIR_WINDOW_MS);
  }

  private scheduleStatuses(number: PhoneNumber, wamid: string, who: Identity, plan: SendPlan, failCode: number | null, windowOpen: boolean, offline = false): void {
    if (!this.config.webhookUrl) return;
    const c = this.config;
    const r = this.rules.config;
    const step = c.statusDelayMs;
    const at = Date.now();
    // Username users (and sends by BSUID to a user without a known phone) show only their BSUID.
    const phoneHidden = who.username || who.waId === null;
    let category = plan.category;
    // Meta bills a send by the Marketing Messages API as `marketing_lite`.
    if (category === 'marketing' && (r.marketingLite || plan.route === 'marketing_messages')) category = 'marketing_lite';
    let pricingType: StatusEvent['pricingType'] = 'regular';
    if (r.freeEntryPoint) pricingType = 'free_entry_point';
    else if (category === 'service' || (category === 'utility' && windowOpen)) pricingType = 'free_customer_service';
    const billable = r.pricingBillableField ? pricingType === 'regular' && category !== 'service' : null;
    const base = {
      number, wamid, biz: plan.bizOpaque, category, pricingType, billable,
      recipientId: phoneHidden ? null : who.waId,
      recipientUserId: phoneHidden || r.bsuidInAllStatuses || plan.bsuid !== null ? who.bsuid : undefined,
    };
    const emit = (status: StatusEvent['status'], delay: number, errorCode?: number) =>
      this.webhooks.scheduleStatus({ ...base, status, errorCode, at: at + delay });
    if (failCode !== null) return emit('failed', step, failCode);
    emit('sent', step);
    if (offline) {
      // Never delivered: only a marketing template's TTL, honoured by the Marketing Messages API
      // alone, ends the retries within the test; Cloud API keeps retrying for 30 days.
      const ttl = plan.template ? this.mm.ttl.get(plan.template.id) : undefined;
      if (plan.route === 'marketing_messages' && ttl !== undefined) emit('failed', 2 * step, 410);
      return;
    }
    if (Math.random() >= c.deliveryRate) return;
    const read = Math.random() < (c.templateReadRates?.[plan.template?.name ?? ''] ?? c.readRate);
    // Reordering delivers `read` before `delivered`, which receivers must tolerate.
    emit('delivered', c.reorderWebhooks && read ? 3 * step : 2 * step);
    if (read) emit('read', c.reorderWebhooks ? 2 * step : 3 * step);
    if (c.autoReplies) this.scheduleAutoReply(c.autoReplies, wamid, plan.template, 4 * step + c.autoReplies.delayMs);
  }

  /** Auto-replies: a share of delivered messages is answered with a tap or a text (see AutoReplies). */
  private scheduleAutoReply(auto: AutoReplies, wamid: string, template: Template | null, delay: number): void {
    const draw = Math.random();
    const buttons = template ? quickReplies(template) : [];
    let reply: ReplyInput | null = null;
    if (buttons.length && draw < auto.tapShare) {
      reply = { wamid, button: buttons[Math.floor(Math.random() * buttons.length)]!.index };
    } else if (draw < auto.tapShare + auto.replyShare) {
      const texts = auto.texts?.length ? auto.texts : AUTO_REPLY_TEXTS;
      reply = { wamid, text: texts[Math.floor(Math.random() * texts.length)] };
    }
    if (!reply) return;
    const timer = setTimeout(() => {
      this.replyTimers.delete(timer);
      this.replyTo(reply).catch(() => undefined);
    }, delay);
    timer.unref();
    this.replyTimers.add(timer);
  }

  /**
   * A recipient answers one of the simulator's messages, as Meta posts it: a text with
   * `context: { from, id }`, or a quick-reply tap (`type: button`, `button: { payload, text }`,
   * with context). A tap must name a quick-reply button of the template sent, and its payload is
   * the one the send gave that button (the button's text when the send gave none): Meta only
   * echoes what the business sent.
   */
  async replyTo(p: ReplyInput): Promise<{ ok: true; wamid: string; context: string }> {
    const sent = this.sentMessage(p);
    const number = this.number(sent.phoneNumberId);
    if (p.button === undefined) {
      const text = String(p.text ?? '').trim();
      if (!text) throw new Error('text or button is required');
      const wamid = await this.sendInbound({ phoneNumberId: number.phoneNumberId, from: sent.to, text, context: sent.wamid });
      return { ok: true, wamid, context: sent.wamid };
    }
    const template = this.templates.list(number.wabaId).find((t) => t.name === sent.template && t.language === sent.language);
    if (!template) throw new Error(`message ${sent.wamid} was not a template message`);
    const buttons = quickReplies(template);
    const button = typeof p.button === 'number' || /^\d+$/.test(String(p.button))
      ? buttons.find((b) => b.index === Number(p.button))
      : buttons.find((b) => b.text === p.button);
    if (!button) throw new Error(`template ${template.name} has no quick-reply button ${JSON.stringify(p.button)}`);
    const sentPayload = payloadSent(sent, button.index) ?? button.text;
    if (p.payload !== undefined && p.payload !== sentPayload) {
      throw new Error(`payload ${JSON.stringify(p.payload)} is not the one sent for button ${button.index} of ${template.name}`);
    }
    const wamid = await this.sendInbound({
      phoneNumberId: number.phoneNumberId,
      from: sent.to,
      context: sent.wamid,
      button: { payload: sentPayload, text: button.text },
    });
    return { ok: true, wamid, context: sent.wamid };
  }

  private sentMessage(p: ReplyInput): RecordedMessage {
    if (p.wamid) {
      const m = this.log.byWamid(String(p.wamid));
      if (!m) throw new Error(`no message ${p.wamid}`);
      return m;
    }
    const raw = String(p.phone ?? '').trim();
    if (!raw) throw new Error('wamid or phone is required');
    const to = /^[A-Z]{2}\./.test(raw) ? raw : raw.replace(/\D/g, '');
    const [m] = this.log.messages({ to, phoneNumberId: p.phoneNumberId, limit: 1 });
    if (!m) throw new Error(`no message sent to ${raw}`);
    return m;
  }

  /** POST /{waba}/message_templates after validation: PENDING now, reviewed after approvalDelayMs. */
  createTemplate(wabaId: string, body: any): Template {
    const t = this.templates.add({
      wabaId,
      name: body.name,
      language: body.language,
      category: String(body.category).toUpperCase() as Template['category'],
      status: 'PENDING',
      components: body.components,
      parameter_format: body.parameter_format === 'NAMED' ? 'NAMED' : 'POSITIONAL',
    });
    if (body.message_send_ttl_seconds !== undefined && body.message_send_ttl_seconds !== null) this.mm.ttl.set(t.id, Number(body.message_send_ttl_seconds));
    const timer = setTimeout(() => {
      this.approvalTimers.delete(timer);
      this.review(t);
    }, this.config.approvalDelayMs);
    timer.unref();
    this.approvalTimers.add(timer);
    return t;
  }

  private review(t: Template): void {
    if (!this.templates.list(t.wabaId).includes(t)) return; // deleted while pending
    const rejected = isRejectedByReview(t, this.config.rejectTemplatesMatching);
    t.status = rejected ? 'REJECTED' : 'APPROVED';
    t.rejected_reason = rejected ? 'INVALID_FORMAT' : 'NONE';
    const value: Record<string, unknown> = {
      event: t.status,
      message_template_id: Number(t.id),
      message_template_name: t.name,
      message_template_language: t.language,
      reason: t.rejected_reason,
      message_template_category: t.category,
    };
    if (rejected) {
      value.rejection_info = {
        reason: 'The template has variable parameters next to each other or breaks the format rules.',
        recommendation: 'Separate variables with words and follow the template formatting guidelines.',
      };
    }
    void this.webhooks.post(envelope(t.wabaId, 'message_template_status_update', value, { time: Math.floor(Date.now() / 1000) }));
  }

  /**
   * Posts an inbound message; `from` is a phone or a BSUID. Username users arrive with only their
   * BSUID. A text, or a quick-reply tap (`button`); `context` makes it a reply to that message.
   * Resolves with the inbound message's wamid once posted.
   */
  async sendInbound(p: InboundInput): Promise<string> {
    const number = this.number(p.phoneNumberId);
    if (!String(p.from ?? '').trim()) throw new Error('from is required');
    if (!p.button && !String(p.text ?? '').length) throw new Error('text or button is required');
    const who = this.identifyUser(p.phoneNumberId, p.from);
    this.inboundAt.set(who.key, nowMs());
    const idSeed = who.waId ?? who.bsuid.replace(/\W/g, '');
    const id = `wamid.HBgM${idSeed}${Date.now().toString(36).toUpperCase()}${Math.random().toString(36).slice(2, 8).toUpperCase()}`;
    const hidden = who.username || who.waId === null;
    const name = `Cliente ${who.key.slice(-4)}`;
    const message: Record<string, unknown> = { id, timestamp: String(Math.floor(Date.now() / 1000)) };
    if (p.context) message.context = { from: number.displayPhoneNumber, id: String(p.context) };
    if (p.button) {
      message.type = 'button';
      message.button = { payload: String(p.button.payload), text: String(p.button.text) };
    } else {
      message.type = 'text';
      message.text = { body: String(p.text) };
    }
    let contact: Record<string, unknown>;
    if (hidden) {
      contact = { profile: { name, username: `@cliente_${who.bsuid.slice(-6).toLowerCase()}` }, user_id: who.bsuid };
      message.from_user_id = who.bsuid;
    } else {
      contact = { profile: { name }, wa_id: who.waId };
      if (this.rules.config.bsuidInAllStatuses) contact.user_id = who.bsuid;
      message.from = who.waId;
      if (this.rules.config.bsuidInAllStatuses) message.from_user_id = who.bsuid;
    }
    const value = messagesValue(number, { contacts: [contact], messages: [{ ...pickFrom(message), ...message }] });
    await this.webhooks.post(envelope(number.wabaId, 'messages', value));
    return id;
  }

  reset(): void {
    this.log.clear();
    this.faults.clear();
    this.media.clear();
    this.pairTimes.clear();
    this.management.clear();
    for (const n of this.numbers.values()) n.window.clear();
    this.webhooks.reset();
    this.rules.reset();
    this.mm.reset();
  }

  /**
   * The WABA's onboarding status; ONBOARDED with `announce` posts the `account_update`
   * MM_LITE_TERMS_SIGNED webhook (`waba_info: {waba_id, owner_business_id}`), as Meta does once
   * the portfolio accepts the terms.
   */
  async setMarketingOnboarding(p: { wabaId: string; status: string; announce?: boolean }): Promise<void> {
    this.mm.setStatus(p.wabaId, p.status);
    if (p.status !== 'ONBOARDED' || p.announce === false) return;
    const owner = [...this.numbers.values()].find((n) => n.wabaId === p.wabaId);
    const value = { event: 'MM_LITE_TERMS_SIGNED', waba_info: { waba_id: p.wabaId, owner_business_id: owner?.businessId ?? p.wabaId } };
    await this.webhooks.post(envelope(p.wabaId, 'account_update', value, { time: Math.floor(Date.now() / 1000) }));
  }

  /**
   * A person taps the body or the call-to-action of a marketing message sent by the Marketing
   * Messages API in the last 7 days: a `messages` change with `user_actions`
   * (marketing_messages_link_click), as Meta documents it, plus the change's `contacts` naming the
   * person as on every other `messages` change about a user.
   */
  async clickLink(p: { wamid: string; component?: 'cta' | 'body' }): Promise<string> {
    const send = this.mm.sends.get(p.wamid);
    if (!send || send.route !== 'marketing_messages') throw new Error('clicks are reported only for messages sent by the Marketing Messages API');
    if (Date.now() - send.at > 7 * 86_400_000) throw new Error('clicks are reported only for messages sent in the last 7 days');
    const [m] = this.log.messages({ limit: 100_000 }).filter((x) => x.wamid === p.wamid);
    const number = m ? this.numbers.get(m.phoneNumberId) : undefined;
    if (!number) throw new Error('unknown message');
    send.clicks++;
    const clickId = `click_${Math.random().toString(36).slice(2, 12)}`;
    const action = {
      action_type: 'marketing_messages_link_click',
      timestamp: String(Math.floor(Date.now() / 1000)),
      marketing_messages_link_click_data: { click_component: p.component ?? 'cta', click_id: clickId, tracking_token: `tt_${p.wamid.slice(-8)}` },
    };
    const contact = /^[A-Z]{2}\./.test(send.to) ? { user_id: send.to } : { profile: { name: `Cliente ${send.to.slice(-4)}` }, wa_id: send.to };
    await this.webhooks.post(envelope(number.wabaId, 'messages', messagesValue(number, { contacts: [contact], user_actions: [action] })));
    return clickId;
  }

  async close(): Promise<void> {
    for (const t of this.approvalTimers) clearTimeout(t);
    this.approvalTimers.clear();
    for (const t of this.replyTimers) clearTimeout(t);
    this.replyTimers.clear();
    this.rules.close();
    await this.webhooks.close();
  }
}

/** Keeps `from` / `from_user_id` first in an inbound message, as Meta orders them. */
function pickFrom(m: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if ('from' in m) out.from = m.from;
  if ('from_user_id' in m) out.from_user_id = m.from_user_id;
  return out;
}

function checkedJitter(j: unknown): LatencyJitter | null {
  if (j === null) return null;
  const o = (j ?? {}) as Record<string, unknown>;
  const out = { baseMs: o.baseMs, tailMeanMs: o.tailMeanMs, capMs: o.capMs };
  for (const [k, v] of Object.entries(out)) {
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new Error(`latencyJitter.${k} must be a non-negative number`);
  }
  return out as LatencyJitter;
}

/** The template's quick-reply buttons, with their index among all its buttons (as sends name them). */
export function quickReplies(t: Template): Array<{ index: number; text: string }> {
  const buttons: any[] = componentOf(t, 'BUTTONS')?.buttons ?? [];
  return buttons
    .map((b, index) => ({ index, type: String(b?.type ?? '').toUpperCase(), text: String(b?.text ?? '') }))
    .filter((b) => b.type === 'QUICK_REPLY')
    .map(({ index, text }) => ({ index, text }));
}

/** The payload a send gave the quick-reply button at `index`, or null when it gave none. */
function payloadSent(m: RecordedMessage, index: number): string | null {
  for (const c of m.components ?? []) {
    if (String(c?.type).toLowerCase() !== 'button' || String(c?.sub_type).toLowerCase() !== 'quick_reply' || Number(c?.index) !== index) continue;
    const p = (c.parameters ?? []).find((x: any) => x?.type === 'payload');
    if (typeof p?.payload === 'string') return p.payload;
  }
  return null;
}

function checkedAutoReplies(v: unknown): AutoReplies | null {
  if (v === null) return null;
  const o = (v ?? {}) as Record<string, unknown>;
  const share = (k: string) => {
    const n = o[k] ?? 0;
    if (typeof n !== 'number' || !Number.isFinite(n) || n < 0 || n > 1) throw new Error(`autoReplies.${k} must be between 0 and 1`);
    return n;
  };
  const tapShare = share('tapShare');
  const replyShare = share('replyShare');
  if (tapShare + replyShare > 1) throw new Error('autoReplies.tapShare + replyShare must be at most 1');
  const delayMs = o.delayMs ?? 0;
  if (typeof delayMs !== 'number' || !Number.isFinite(delayMs) || delayMs < 0) throw new Error('autoReplies.delayMs must be a non-negative number');
  const texts = Array.isArray(o.texts) ? o.texts.map(String).filter((x) => x.trim()) : undefined;
  return { tapShare, replyShare, delayMs, ...(texts?.length ? { texts } : {}) };
}
