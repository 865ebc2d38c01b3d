// Everything a running WhatsApp simulator knows. The HTTP routes, the programmatic API and the
// /__control endpoints all act on this object.
import { SlidingWindow } from '../shared/sliding-window';
import { graphError, type GraphError } from './errors';
import { SendFaults } from './faults';
import { MediaStore } from './media';
import { MessageLog } from './message-log';
import { clampThroughput, makeNumber, type PhoneNumber } from './phone-numbers';
import type { SendPlan } from './send-validation';
import { isRejectedByReview, TemplateStore, type Template } from './templates';
import type { LatencyJitter, NumberInput, RecipientBehaviour, TemplateInput, WhatsAppConfig, WhatsAppFault } from './types';
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

export type AcceptResult = { ok: true; wamid: string; waId: string } | { ok: false; error: GraphError };

export class WhatsAppState {
  readonly numbers = new Map<string, PhoneNumber>();
  readonly templates = new TemplateStore();
  readonly log = new MessageLog();
  readonly faults = new SendFaults();
  readonly media = new MediaStore();
  readonly webhooks: WebhookDispatcher;
  private behaviours = new Map<string, RecipientBehaviour>();
  /** Recent send times per (number, recipient), for 131056. Swept every few seconds. */
  private pairTimes = new Map<string, number[]>();
  private lastPairSweep = 0;
  /** Last inbound message per customer, for the 24 h customer-service window. */
  private inboundAt = new Map<string, number>();
  private management = new Map<string, SlidingWindow>();
  private approvalTimers = new Set<NodeJS.Timeout>();

  constructor(readonly config: WhatsAppConfig) {
    this.webhooks = new WebhookDispatcher(config);
  }

  addNumber(input: NumberInput): PhoneNumber {
    const n = makeNumber(input);
    this.numbers.set(n.phoneNumberId, n);
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
    return this.templates.add(t);
  }

  setThroughput(phoneNumberId: string, perSecond: number): void {
    this.number(phoneNumberId).throughput = clampThroughput(perSecond);
  }

  setRecipientBehaviour(phoneDigits: string, b: RecipientBehaviour): void {
    if (!['not_on_whatsapp', 'opted_out', 'pair_limit', 'ok'].includes(b)) throw new Error(`unknown behaviour ${String(b)}`);
    const digits = String(phoneDigits).replace(/\D/g, '');
    if (b === 'ok') this.behaviours.delete(digits);
    else this.behaviours.set(digits, b);
  }

  injectFault(f: WhatsAppFault): void {
    this.faults.add(f);
  }

  configure(p: Partial<WhatsAppConfig> & { rejectTemplatesMatching?: RegExp | string | null }): void {
    const c = this.config;
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
    if (p.latencyJitter !== undefined) c.latencyJitter = checkedJitter(p.latencyJitter);
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
  accept(number: PhoneNumber, plan: SendPlan): AcceptResult {
    const now = nowMs();
    const waId = waIdOf(plan.digits);
    const behaviour = this.behaviours.get(plan.digits) ?? this.behaviours.get(waId) ?? 'ok';
    if (plan.digits === number.displayPhoneNumber) return { ok: false, error: graphError(131021) };
    if (plan.kind === 'text' && now - (this.inboundAt.get(waId) ?? -Infinity) > SERVICE_WINDOW_MS) {
      return { ok: false, error: graphError(131047) };
    }
    const pairKey = `${number.phoneNumberId}|${waId}`;
    const recent = this.recentPairSends(pairKey, now);
    if (behaviour === 'pair_limit' || recent.length >= this.config.pairLimit) return { ok: false, error: graphError(131056) };
    // Rejected sends never count: only accepted messages fill the throughput window.
    if (number.window.count(now) >= number.throughput) return { ok: false, error: graphError(130429) };
    number.window.add(now);
    recent.push(now);
    this.pairTimes.set(pairKey, recent);

    const wamid = this.log.record({
      phoneNumberId: number.phoneNumberId,
      to: plan.digits,
      template: plan.template?.name ?? '',
      language: plan.language,
      bizOpaque: plan.bizOpaque,
      componentsJson: plan.componentsJson,
      at: now,
    });
    this.scheduleStatuses(number, wamid, waId, plan, behaviour);
    return { ok: true, wamid, waId };
  }

  private recentPairSends(key: string, now: number): number[] {
    if (now - this.lastPairSweep > PAIR_WINDOW_MS) {
      for (const [k, times] of this.pairTimes) if (now - times[times.length - 1] >= PAIR_WINDOW_MS) this.pairTimes.delete(k);
      this.lastPairSweep = now;
    }
    return (this.pairTimes.get(key) ?? []).filter((t) => now - t < PAIR_WINDOW_MS);
  }

  private scheduleStatuses(number: PhoneNumber, wamid: string, waId: string, plan: SendPlan, behaviour: RecipientBehaviour): void {
    if (!this.config.webhookUrl) return;
    const c = this.config;
    const step = c.statusDelayMs;
    const at = Date.now();
    const base = { number, wamid, recipientId: waId, biz: plan.bizOpaque, category: plan.category };
    const emit = (status: StatusEvent['status'], delay: number, errorCode?: number) =>
      this.webhooks.scheduleStatus({ ...base, status, errorCode, at: at + delay });
    const failCode = behaviour === 'not_on_whatsapp' ? 131026 : behaviour === 'opted_out' ? 131050 : Math.random() < c.failRate ? c.failCode : null;
    if (failCode !== null) return emit('failed', step, failCode);
    emit('sent', step);
    if (Math.random() >= c.deliveryRate) return;
    const read = Math.random() < c.readRate;
    // Reordering delivers `read` before `delivered`, which receivers must tolerate.
    emit('delivered', c.reorderWebhooks && read ? 3 * step : 2 * step);
    if (read) emit('read', c.reorderWebhooks ? 2 * step : 3 * step);
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

  async sendInbound(p: { phoneNumberId: string; from: string; text: string }): Promise<void> {
    const number = this.number(p.phoneNumberId);
    const from = waIdOf(String(p.from).replace(/\D/g, ''));
    if (!from) throw new Error('from is required');
    this.inboundAt.set(from, nowMs());
    const id = `wamid.HBgM${from}${Date.now().toString(36).toUpperCase()}${Math.random().toString(36).slice(2, 8).toUpperCase()}`;
    const value = messagesValue(number, {
      contacts: [{ profile: { name: `Cliente ${from.slice(-4)}` }, wa_id: from }],
      messages: [{ from, id, timestamp: String(Math.floor(Date.now() / 1000)), type: 'text', text: { body: String(p.text) } }],
    });
    await this.webhooks.post(envelope(number.wabaId, 'messages', value));
  }

  reset(): void {
    this.log.clear();
    this.faults.clear();
    this.media.clear();
    this.pairTimes.clear();
    this.management.clear();
    for (const n of this.numbers.values()) n.window.clear();
    this.webhooks.reset();
  }

  async close(): Promise<void> {
    for (const t of this.approvalTimers) clearTimeout(t);
    this.approvalTimers.clear();
    await this.webhooks.close();
  }
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
