// Delivers webhooks the way Meta does: signed with X-Hub-Signature-256 over the exact body bytes,
// status updates batched per phone number, failed deliveries retried with backoff. Sends only push
// onto a heap; a timer builds and posts batches, so webhook work never slows the send path.
import { createHmac } from 'node:crypto';
import { Pool } from 'undici';
import { MinHeap } from '../shared/min-heap';
import { webhookError } from './errors';
import type { WhatsAppConfig } from './types';

export interface NumberMeta {
  phoneNumberId: string;
  wabaId: string;
  displayPhoneNumber: string;
}

export type StatusName = 'sent' | 'delivered' | 'read' | 'failed';

export interface StatusEvent {
  number: NumberMeta;
  status: StatusName;
  wamid: string;
  /** The user's phone (wa_id); null for a username user, whose statuses carry only the BSUID. */
  recipientId: string | null;
  /** The user's BSUID, when the status carries recipient_user_id. */
  recipientUserId?: string;
  biz: string | null;
  /** Pricing category: marketing, marketing_lite, utility, authentication or service. */
  category: string;
  /** Pricing type (default regular) and whether it is billable; billable null leaves the field out. */
  pricingType?: 'regular' | 'free_customer_service' | 'free_entry_point';
  billable?: boolean | null;
  errorCode?: number;
  /** When it happened (ms since the epoch); becomes the string timestamp. */
  at: number;
}

interface Job {
  body: Buffer;
  events: number;
  attempts: number;
  generation: number;
  onDone?: () => void;
}

const TICK_MS = 20;
const MAX_IN_FLIGHT = 16;
const MAX_ATTEMPTS = 5;
const FIRST_BACKOFF_MS = 100;
const REQUEST_TIMEOUT_MS = 10_000;

export function sign(body: Buffer, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

function statusJson(ev: StatusEvent) {
  const s: Record<string, unknown> = {
    id: ev.wamid,
    status: ev.status,
    timestamp: String(Math.floor(ev.at / 1000)),
  };
  if (ev.recipientId !== null) s.recipient_id = ev.recipientId;
  if (ev.recipientUserId) s.recipient_user_id = ev.recipientUserId;
  if (ev.biz !== null) s.biz_opaque_callback_data = ev.biz;
  if (ev.status === 'sent' || ev.status === 'delivered') {
    const pricing: Record<string, unknown> = {};
    const billable = ev.billable === undefined ? ev.category !== 'service' : ev.billable;
    if (billable !== null) pricing.billable = billable;
    s.pricing = Object.assign(pricing, { pricing_model: 'PMP', type: ev.pricingType ?? 'regular', category: ev.category });
  }
  if (ev.status === 'failed') s.errors = [webhookError(ev.errorCode ?? 131000)];
  return s;
}

export function envelope(wabaId: string, field: string, value: Record<string, unknown>, entryExtra: Record<string, unknown> = {}) {
  return { object: 'whatsapp_business_account', entry: [{ id: wabaId, ...entryExtra, changes: [{ field, value }] }] };
}

export function messagesValue(number: NumberMeta, rest: Record<string, unknown>) {
  return {
    messaging_product: 'whatsapp',
    metadata: { display_phone_number: number.displayPhoneNumber, phone_number_id: number.phoneNumberId },
    ...rest,
  };
}

function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

export class WebhookDispatcher {
  private scheduled = new MinHeap<StatusEvent>();
  private queue: Job[] = [];
  private queuedEvents = 0;
  private inFlightEvents = 0;
  private inFlight = 0;
  private retryingEvents = 0;
  private retrying = new Map<NodeJS.Timeout, Job>();
  private ticker: NodeJS.Timeout | null = null;
  private pool: Pool | null = null;
  private poolOrigin = '';
  private waiters: Array<() => void> = [];
  private generation = 0;
  private counts = { sent: 0, failed: 0, posts: 0 };
  private closed = false;
  /** Share of status POSTs that also carry a value-level `errors` array (set by the Meta rules). */
  valueErrorsShare = 0;

  constructor(private readonly cfg: WhatsAppConfig) {}

  /** Queues a status update for delivery at ev.at. Dropped when no webhook URL is set. */
  scheduleStatus(ev: StatusEvent): void {
    if (!this.cfg.webhookUrl || this.closed) return;
    this.scheduled.push(ev.at, ev);
    if (!this.ticker) {
      this.ticker = setInterval(() => this.pump(), TICK_MS);
      this.ticker.unref();
    }
  }

  /** Posts one payload now (inbound message, template update); resolves when delivered or given up. */
  post(payload: unknown, events = 1): Promise<void> {
    if (!this.cfg.webhookUrl || this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      this.enqueue(Buffer.from(JSON.stringify(payload)), events, resolve);
      this.drive();
    });
  }

  stats(): { sent: number; failed: number; pending: number; posts: number } {
    return { ...this.counts, pending: this.pending() };
  }

  pending(): number {
    return this.scheduled.size + this.queuedEvents + this.inFlightEvents + this.retryingEvents;
  }

  /** Resolves once nothing is scheduled, queued, in flight or waiting for a retry. */
  flush(): Promise<void> {
    if (this.pending() === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Forgets everything not yet delivered and zeroes the counters. */
  reset(): void {
    this.generation++;
    this.scheduled.clear();
    const dropped = [...this.queue, ...this.retrying.values()];
    for (const t of this.retrying.keys()) clearTimeout(t);
    this.retrying.clear();
    this.queue = [];
    this.queuedEvents = 0;
    this.inFlightEvents = 0;
    this.retryingEvents = 0;
    for (const job of dropped) job.onDone?.(); // nobody waits forever on a dropped delivery
    this.counts = { sent: 0, failed: 0, posts: 0 };
    this.settle();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.reset();
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = null;
    const pool = this.pool;
    this.pool = null;
    if (pool) await pool.destroy().catch(() => undefined);
  }

  private pump(): void {
    const now = Date.now();
    const due = new Map<string, StatusEvent[]>();
    while (this.scheduled.size > 0 && (this.scheduled.peekKey() as number) <= now) {
      const ev = this.scheduled.pop() as StatusEvent;
      const list = due.get(ev.number.phoneNumberId);
      if (list) list.push(ev);
      else due.set(ev.number.phoneNumberId, [ev]);
    }
    const max = Math.max(1, this.cfg.webhookBatchMax);
    for (const events of due.values()) {
      for (let i = 0; i < events.length; i += max) {
        const batch = events.slice(i, i + max);
        if (this.cfg.reorderWebhooks) shuffle(batch);
        const number = batch[0].number;
        const rest: Record<string, unknown> = { statuses: batch.map(statusJson) };
        // Meta sometimes adds errors that belong to no single message at the value level.
        if (this.valueErrorsShare > 0 && Math.random() < this.valueErrorsShare) rest.errors = [webhookError(131000)];
        const body = Buffer.from(JSON.stringify(envelope(number.wabaId, 'messages', messagesValue(number, rest))));
        this.enqueue(body, batch.length);
        if (this.cfg.duplicateWebhooks) this.enqueue(body, batch.length);
      }
    }
    if (this.scheduled.size === 0 && this.ticker) {
      clearInterval(this.ticker);
      this.ticker = null;
    }
    this.drive();
    this.settle();
  }

  private enqueue(body: Buffer, events: number, onDone?: () => void): void {
    this.queue.push({ body, events, attempts: 0, generation: this.generation, onDone });
    this.queuedEvents += events;
  }

  private drive(): void {
    while (this.inFlight < MAX_IN_FLIGHT && this.queue.length > 0) {
      const job = this.queue.shift() as Job;
      this.queuedEvents -= job.events;
      this.inFlight++;
      this.inFlightEvents += job.events;
      void this.deliver(job).then((ok) => this.finish(job, ok));
    }
  }

  private poolFor(url: URL): Pool {
    if (!this.pool || this.poolOrigin !== url.origin) {
      void this.pool?.close().catch(() => undefined);
      this.pool = new Pool(url.origin, { connections: MAX_IN_FLIGHT, headersTimeout: REQUEST_TIMEOUT_MS, bodyTimeout: REQUEST_TIMEOUT_MS });
      this.poolOrigin = url.origin;
    }
    return this.pool;
  }

  private async deliver(job: Job): Promise<boolean> {
    const target = this.cfg.webhookUrl;
    if (!target || this.closed) return false;
    try {
      const url = new URL(target);
      this.counts.posts++;
      const res = await this.poolFor(url).request({
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-hub-signature-256': sign(job.body, this.cfg.appSecret),
          'user-agent': 'facebookexternalua',
        },
        body: job.body,
      });
      await res.body.dump();
      return res.statusCode >= 200 && res.statusCode < 300;
    } catch {
      return false;
    }
  }

  private finish(job: Job, ok: boolean): void {
    this.inFlight--;
    const current = job.generation === this.generation;
    if (current) this.inFlightEvents -= job.events;
    if (ok || !current) {
      if (current && ok) this.counts.sent += job.events;
      job.onDone?.();
    } else if (this.cfg.webhookRetry && !this.closed && ++job.attempts < MAX_ATTEMPTS) {
      this.retryingEvents += job.events;
      const timer = setTimeout(() => {
        this.retrying.delete(timer);
        this.retryingEvents -= job.events;
        this.queue.push(job);
        this.queuedEvents += job.events;
        this.drive();
      }, FIRST_BACKOFF_MS * 2 ** (job.attempts - 1));
      timer.unref();
      this.retrying.set(timer, job);
    } else {
      this.counts.failed += job.events;
      job.onDone?.();
    }
    this.drive();
    this.settle();
  }

  private settle(): void {
    if (this.waiters.length === 0 || this.pending() > 0) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }
}
