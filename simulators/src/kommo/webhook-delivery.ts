// Posts Kommo webhooks: form-encoded bodies to subscribed destinations, after the change that
// caused them has returned. A POST counts as delivered on a 2xx answer within 2 s (Kommo's wait);
// anything else (another status, a connection error, a timeout) is retried, MAX_ATTEMPTS in all,
// with a short back-off instead of Kommo's minutes (5 min, 15 min, 15 min, 1 h) so tests stay fast.
// Nothing a destination does can throw out of here.
import { Agent, request } from 'undici';

export interface WebhookControl {
  /** false: nothing is posted (webhooks "unavailable"); events are still logged. */
  enabled: boolean;
  /** Each POST is delivered this many extra times (separate POSTs of the same body). */
  duplicates: number;
  /**
   * The next `failFirst` attempts are posted but counted as failed whatever the answer (as when
   * Kommo misses the acknowledgement), so they are retried: the destination sees the body again.
   */
  failFirst: number;
}

export interface WebhookStats {
  /** POSTs that got a 2xx (each duplicate counts). */
  delivered: number;
  /** POSTs given up after MAX_ATTEMPTS. */
  failed: number;
  /** HTTP attempts made. */
  attempts: number;
  /** POSTs queued, in flight or waiting for a retry. */
  pending: number;
}

interface Job {
  destination: string;
  body: string;
  attempts: number;
  generation: number;
}

export const MAX_ATTEMPTS = 4;
/** Wait before attempt 2, 3, 4. */
export const BACKOFF_MS = [100, 200, 400] as const;
/** Kommo waits at most 2 s for the answer. */
export const ANSWER_TIMEOUT_MS = 2_000;
const MAX_IN_FLIGHT = 16;

export class KommoWebhookDispatcher {
  readonly control: WebhookControl = { enabled: true, duplicates: 0, failFirst: 0 };
  private queue: Job[] = [];
  private inFlight = 0;
  private retrying = new Map<NodeJS.Timeout, Job>();
  private aborts = new Set<AbortController>();
  private waiters: Array<() => void> = [];
  private counts = { delivered: 0, failed: 0, attempts: 0 };
  private driveScheduled = false;
  private generation = 0;
  private closed = false;
  /** Its own connection pool, so close() leaves no socket behind. */
  private readonly agent = new Agent({ connections: MAX_IN_FLIGHT, keepAliveTimeout: 4_000 });

  configure(p: Partial<WebhookControl>): void {
    if (p.enabled !== undefined) {
      if (typeof p.enabled !== 'boolean') throw new Error('enabled must be a boolean');
      this.control.enabled = p.enabled;
    }
    for (const key of ['duplicates', 'failFirst'] as const) {
      const v = p[key];
      if (v === undefined) continue;
      if (!Number.isInteger(v) || v < 0) throw new Error(`${key} must be a non-negative integer`);
      this.control[key] = v;
    }
  }

  /** Queues one form-encoded body for a destination; it is posted after the caller returns. */
  post(destination: string, body: string): void {
    if (!this.control.enabled || this.closed) return;
    for (let i = 0; i <= this.control.duplicates; i++) this.queue.push({ destination, body, attempts: 0, generation: this.generation });
    this.scheduleDrive();
  }

  stats(): WebhookStats {
    return { ...this.counts, pending: this.pending() };
  }

  pending(): number {
    return this.queue.length + this.inFlight + this.retrying.size;
  }

  /** Resolves once nothing is queued, in flight or waiting for a retry. */
  flush(): Promise<void> {
    if (this.pending() === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Drops everything not yet delivered and zeroes the counters (keeps the control settings). */
  reset(): void {
    this.generation++;
    for (const t of this.retrying.keys()) clearTimeout(t);
    this.retrying.clear();
    this.queue = [];
    for (const a of this.aborts) a.abort();
    this.counts = { delivered: 0, failed: 0, attempts: 0 };
    this.settle();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.reset();
    await this.agent.destroy().catch(() => undefined);
  }

  private scheduleDrive(): void {
    if (this.driveScheduled) return;
    this.driveScheduled = true;
    // setImmediate: the API answer (or the control call) that caused the change goes out first.
    setImmediate(() => {
      this.driveScheduled = false;
      this.drive();
    });
  }

  private drive(): void {
    while (!this.closed && this.inFlight < MAX_IN_FLIGHT && this.queue.length > 0) {
      const job = this.queue.shift() as Job;
      this.inFlight++;
      void this.attempt(job).then((ok) => this.finish(job, ok), () => this.finish(job, false));
    }
  }

  private async attempt(job: Job): Promise<boolean> {
    this.counts.attempts++;
    job.attempts++;
    const forcedFailure = this.control.failFirst > 0;
    if (forcedFailure) this.control.failFirst--;
    const abort = new AbortController();
    this.aborts.add(abort);
    const timer = setTimeout(() => abort.abort(), ANSWER_TIMEOUT_MS);
    try {
      const res = await request(job.destination, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: job.body,
        signal: abort.signal,
        dispatcher: this.agent,
        headersTimeout: ANSWER_TIMEOUT_MS,
        bodyTimeout: ANSWER_TIMEOUT_MS,
      });
      await res.body.dump().catch(() => undefined);
      return !forcedFailure && res.statusCode >= 200 && res.statusCode < 300;
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
      this.aborts.delete(abort);
    }
  }

  private finish(job: Job, ok: boolean): void {
    this.inFlight--;
    const current = job.generation === this.generation && !this.closed;
    if (current && ok) {
      this.counts.delivered++;
    } else if (current && job.attempts < MAX_ATTEMPTS) {
      const timer = setTimeout(() => {
        this.retrying.delete(timer);
        if (job.generation !== this.generation) return this.settle();
        this.queue.push(job);
        this.drive();
      }, BACKOFF_MS[job.attempts - 1]);
      timer.unref();
      this.retrying.set(timer, job);
    } else if (current) {
      this.counts.failed++;
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
