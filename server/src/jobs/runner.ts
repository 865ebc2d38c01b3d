import { sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { rowsOf } from '../db/sql';
import type { Log } from '../lib/log';
import { JobLeaseLost } from './errors';
import { nextRetryAt, type RetrySchedule } from './retry';

/**
 * The durable job runner: one loop for every background job except the campaign sender.
 *
 * A queue's jobs live in database rows (the generic `jobs` table, or a feature's own rows such
 * as `kommo_accounts` for the sync). The runner claims a due job by writing a lease on its row,
 * renews the lease while the job runs (a third of the lease each time), and aborts the job's
 * signal the moment a renewal finds the lease gone (cancelled, deleted, taken over). A process
 * that dies leaves its lease to expire, and another process's claim takes the job over; so every
 * job runs at least once, and a handler's effects must be idempotent or fenced by the lease.
 *
 * On top: at most one running job per key (one Kommo account, say) in this process and, through
 * the store's claim, across processes; a retry schedule per queue; periodic jobs that run once
 * per period across processes (`job_schedules`); and a graceful stop that waits a bounded time
 * for running jobs and gives the leases of those still running back.
 */

/** A job the runner holds a lease on. */
export interface ClaimedJob<P> {
  /** Unique within the queue. */
  id: string;
  /** Concurrency key: at most one running job per key. */
  key: string | null;
  payload: P;
  /** Failed runs before this one. */
  attempts: number;
}

/** Where a queue's jobs live; every write is fenced by the lease (`owner`). */
export interface JobStore<P> {
  /** Takes at most one due job whose lease is free or expired, and whose key is not running anywhere. */
  claim(args: { owner: string; leaseMs: number; running: ReadonlyArray<ClaimedJob<P>> }): Promise<ClaimedJob<P> | undefined>;
  /** Extends the lease; false once it is gone. */
  renew(job: ClaimedJob<P>, owner: string, leaseMs: number): Promise<boolean>;
  /** The job ran to its end. */
  complete(job: ClaimedJob<P>, owner: string): Promise<void>;
  /** The job failed: run it again at `retryAt`, or give up when it is null. */
  fail(job: ClaimedJob<P>, owner: string, err: unknown, retryAt: Date | null): Promise<void>;
  /** The process is stopping: the lease goes back so another process resumes the job at once. */
  release(job: ClaimedJob<P>, owner: string): Promise<void>;
}

export interface QueueDefinition<P> {
  name: string;
  store: JobStore<P>;
  /**
   * Runs one job; `signal` aborts when the process stops or the lease is lost. `owner` is the
   * lease holder's name, for effects fenced by the lease.
   */
  run(job: ClaimedJob<P>, signal: AbortSignal, owner: string): Promise<void>;
  /** Subscribes to what should wake the queue or abort one of its jobs; returns the unsubscribe. */
  subscribe?(control: { wake(): void; abort(id: string): void }): () => void;
  /** A lease not renewed for this long is taken over by another process. */
  leaseMs?: number;
  /** Jobs of this queue at once in this process. */
  maxConcurrent?: number;
  /** How often due jobs are looked for (a wake looks at once). */
  pollMs?: number;
  /** When a failed job runs again; none means it fails at once. */
  retry?: RetrySchedule;
}

export interface PeriodicDefinition {
  /** The row in `job_schedules`. */
  name: string;
  everyMs: number;
  run(signal: AbortSignal): Promise<void>;
  /** A run whose holder died is taken over after this long (renewed while it runs; default 3 periods, at least 5 s). */
  leaseMs?: number;
}

export interface JobRunnerOptions {
  db: Db;
  log: Log;
  /** This process's name on its leases. */
  owner: string;
  /** How long `stop()` waits for running jobs before it gives their leases back. */
  stopTimeoutMs?: number;
}

interface Running<P> {
  job: ClaimedJob<P>;
  done: Promise<void>;
  abort: AbortController;
}

class QueueLoop<P> {
  readonly running = new Map<string, Running<P>>();
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private again = false;
  private readonly leaseMs: number;
  private readonly maxConcurrent: number;
  private readonly pollMs: number;

  constructor(
    readonly def: QueueDefinition<P>,
    private readonly runner: { owner: string; log: Log; stopping: AbortSignal },
  ) {
    this.leaseMs = def.leaseMs ?? 30_000;
    this.maxConcurrent = def.maxConcurrent ?? 4;
    this.pollMs = def.pollMs ?? 1000;
  }

  start() {
    this.unsubscribe = this.def.subscribe?.({
      wake: () => void this.tick(),
      abort: (id) => this.running.get(id)?.abort.abort(new JobLeaseLost()),
    });
    const loop = () => {
      this.timer = setTimeout(async () => {
        await this.tick();
        if (!this.runner.stopping.aborted) loop();
      }, this.pollMs);
      this.timer.unref?.();
    };
    void this.tick();
    loop();
  }

  halt() {
    this.unsubscribe?.();
    clearTimeout(this.timer);
  }

  /** The claim under way, which a stop waits for. */
  ticking: Promise<void> | null = null;

  tick(): Promise<void> {
    if (this.ticking) {
      this.again = true;
      return this.ticking;
    }
    this.ticking = this.claimLoop().finally(() => {
      this.ticking = null;
    });
    return this.ticking;
  }

  private async claimLoop(): Promise<void> {
    try {
      do {
        this.again = false;
        while (!this.runner.stopping.aborted && this.running.size < this.maxConcurrent) {
          const job = await this.def.store.claim({
            owner: this.runner.owner,
            leaseMs: this.leaseMs,
            running: [...this.running.values()].map((r) => r.job),
          });
          if (!job) break;
          if (this.runner.stopping.aborted) {
            // The stop came while this claim was under way: the job goes straight back.
            await this.def.store.release(job, this.runner.owner);
            break;
          }
          this.launch(job);
        }
      } while (this.again && !this.runner.stopping.aborted);
    } catch (err) {
      // The database is briefly unavailable: the next poll tries again.
      this.runner.log.warn({ queue: this.def.name, err }, 'claiming a job failed');
    }
  }

  private launch(job: ClaimedJob<P>) {
    const abort = new AbortController();
    const entry: Running<P> = { job, abort, done: Promise.resolve() };
    entry.done = this.execute(job, abort).finally(() => {
      this.running.delete(job.id);
      if (!this.runner.stopping.aborted) void this.tick();
    });
    this.running.set(job.id, entry);
  }

  private async execute(job: ClaimedJob<P>, abort: AbortController) {
    const { store } = this.def;
    const { owner, log, stopping } = this.runner;
    const signal = AbortSignal.any([stopping, abort.signal]);
    const renew = setInterval(() => void this.renew(job, abort), Math.max(250, this.leaseMs / 3));
    try {
      await this.def.run(job, signal, owner);
      await store.complete(job, owner);
    } catch (err) {
      try {
        if (stopping.aborted) await store.release(job, owner);
        else if (abort.signal.aborted || err instanceof JobLeaseLost) return; // cancelled, deleted or taken over: not ours any more
        else await store.fail(job, owner, err, this.def.retry ? nextRetryAt(this.def.retry, job.attempts + 1) : null);
      } catch (writeErr) {
        // The lease expires on its own and another attempt runs the job.
        log.warn({ queue: this.def.name, err: writeErr }, 'recording a job outcome failed');
      }
    } finally {
      clearInterval(renew);
    }
  }

  private async renew(job: ClaimedJob<P>, abort: AbortController) {
    try {
      if (!(await this.def.store.renew(job, this.runner.owner, this.leaseMs))) abort.abort(new JobLeaseLost());
    } catch (err) {
      // A missed renewal only risks a take-over, which the lease fence on every write handles.
      this.runner.log.warn({ queue: this.def.name, err }, 'job lease renewal failed');
    }
  }
}

class PeriodicLoop {
  private timer: NodeJS.Timeout | undefined;
  private busy: Promise<void> | null = null;
  private rerun = false;
  private readonly leaseMs: number;
  /** Milliseconds until the schedule row's next run, as last read (null: not known). */
  private dueInMs: number | null = null;

  constructor(
    readonly def: PeriodicDefinition,
    private readonly runner: { db: Db; owner: string; log: Log; stopping: AbortSignal },
  ) {
    this.leaseMs = def.leaseMs ?? Math.max(5_000, def.everyMs * 3);
  }

  async start() {
    await this.runner.db.execute(sql`insert into job_schedules (name) values (${this.def.name}) on conflict (name) do nothing`);
    const loop = () => {
      this.timer = setTimeout(async () => {
        await this.tick();
        if (!this.runner.stopping.aborted) loop();
      }, this.nextLookMs());
      this.timer.unref?.();
    };
    void this.tick();
    loop();
  }

  /** When to look again: when the row says the next run is due (another process may move it), never later than a period. */
  private nextLookMs(): number {
    const every = this.def.everyMs;
    const due = this.dueInMs;
    if (due === null) return every;
    return due <= 0 ? Math.min(every, 1_000) : Math.min(every, Math.max(10, due + 10));
  }

  halt() {
    clearTimeout(this.timer);
  }

  get current(): Promise<void> | null {
    return this.busy;
  }

  /**
   * Runs the job if it is due and no process holds it; `now` makes it due first (a wake). A wake
   * that comes while this process runs it runs it once more afterwards, so no wake is lost.
   */
  tick(now = false): Promise<void> {
    if (this.runner.stopping.aborted) return this.busy ?? Promise.resolve();
    if (this.busy) {
      if (now) this.rerun = true;
      return this.busy;
    }
    this.busy = this.turn(now).finally(() => {
      this.busy = null;
      if (this.rerun) {
        this.rerun = false;
        void this.tick(true);
      }
    });
    return this.busy;
  }

  private async turn(now: boolean) {
    const { db, owner, log, stopping } = this.runner;
    const { name } = this.def;
    let startedAt: string;
    try {
      if (now) await db.execute(sql`update job_schedules set next_run_at = now() where name = ${name} and next_run_at > now()`);
      const [claimed] = await rowsOf<{ started: string }>(db, sql`
        update job_schedules set lease_owner = ${owner}, lease_expires_at = now() + make_interval(secs => ${this.leaseMs / 1000})
        where name = ${name} and next_run_at <= now() and (lease_expires_at is null or lease_expires_at < now())
        returning now()::text as started`);
      if (!claimed) {
        const [row] = await rowsOf<{ due_in_ms: number | string }>(db, sql`
          select extract(epoch from (next_run_at - now())) * 1000 as due_in_ms from job_schedules where name = ${name}`);
        this.dueInMs = row ? Number(row.due_in_ms) : null;
        return;
      }
      startedAt = claimed.started;
      if (stopping.aborted) {
        await db.execute(sql`update job_schedules set lease_owner = null, lease_expires_at = null where name = ${name} and lease_owner = ${owner}`);
        return;
      }
    } catch (err) {
      log.warn({ periodic: name, err }, 'claiming a periodic job failed');
      return;
    }
    let error: string | null = null;
    // Renewed while it runs, so a long run is not taken over; a dead holder's turn is, once the lease expires.
    const renew = setInterval(() => {
      db.execute(sql`update job_schedules set lease_expires_at = now() + make_interval(secs => ${this.leaseMs / 1000})
                     where name = ${name} and lease_owner = ${owner}`).catch((err: unknown) => log.warn({ periodic: name, err }, 'periodic lease renewal failed'));
    }, Math.max(250, this.leaseMs / 3));
    try {
      await this.def.run(stopping);
    } catch (err) {
      error = err instanceof Error ? err.message.slice(0, 500) : 'error';
      log.error({ periodic: name, err }, `periodic job "${name}" failed`);
    } finally {
      clearInterval(renew);
    }
    try {
      // A period after this run started (not ended): a minute-long period stays a minute, however long the run.
      const [row] = await rowsOf<{ due_in_ms: number | string }>(db, sql`
        update job_schedules set lease_owner = null, lease_expires_at = null, last_run_at = now(), last_error = ${error},
               next_run_at = greatest(now(), ${startedAt}::timestamptz + make_interval(secs => ${this.def.everyMs / 1000}))
        where name = ${name} and lease_owner = ${owner}
        returning extract(epoch from (next_run_at - now())) * 1000 as due_in_ms`);
      this.dueInMs = row ? Number(row.due_in_ms) : null;
    } catch (err) {
      log.warn({ periodic: name, err }, 'recording a periodic run failed'); // the lease expires on its own
    }
  }
}

export class JobRunner {
  private readonly queues = new Map<string, QueueLoop<unknown>>();
  private readonly periodics = new Map<string, PeriodicLoop>();
  private readonly stopper = new AbortController();
  private started = false;
  private readonly shared: { db: Db; owner: string; log: Log; stopping: AbortSignal };

  constructor(private readonly opts: JobRunnerOptions) {
    this.shared = { db: opts.db, owner: opts.owner, log: opts.log, stopping: this.stopper.signal };
  }

  queue<P>(def: QueueDefinition<P>): this {
    if (this.queues.has(def.name)) throw new Error(`queue "${def.name}" registered twice`);
    const loop = new QueueLoop(def, this.shared);
    this.queues.set(def.name, loop as unknown as QueueLoop<unknown>);
    if (this.started) loop.start();
    return this;
  }

  periodic(def: PeriodicDefinition): this {
    if (this.periodics.has(def.name)) throw new Error(`periodic job "${def.name}" registered twice`);
    const loop = new PeriodicLoop(def, this.shared);
    this.periodics.set(def.name, loop);
    if (this.started) void loop.start().catch((err: unknown) => this.opts.log.warn({ periodic: def.name, err }, 'starting a periodic job failed'));
    return this;
  }

  async start(): Promise<this> {
    this.started = true;
    for (const q of this.queues.values()) q.start();
    for (const p of this.periodics.values()) await p.start();
    return this;
  }

  /** Looks for due jobs of the queue now (after an enqueue in this process). */
  wake(queue: string): void {
    void this.queues.get(queue)?.tick();
  }

  /** Runs a periodic job now, unless another process is running it; resolves when this process's turn ends. */
  runNow(name: string): Promise<void> {
    return this.periodics.get(name)?.tick(true) ?? Promise.resolve();
  }

  /** Aborts a job running in this process (its lease was taken away, e.g. a cancel). */
  abort(queue: string, id: string): void {
    this.queues.get(queue)?.running.get(id)?.abort.abort(new JobLeaseLost());
  }

  /** Ids of the queue's jobs running in this process. */
  runningIds(queue: string): string[] {
    return [...(this.queues.get(queue)?.running.keys() ?? [])];
  }

  /**
   * Graceful stop: no new claims, every running job's signal aborts (a job saves where it is
   * and its lease goes back), and after `stopTimeoutMs` the leases of jobs still running are
   * given back anyway, so another process takes them over at once.
   */
  async stop(): Promise<void> {
    if (this.stopper.signal.aborted) return;
    this.stopper.abort(new Error('stopping'));
    for (const q of this.queues.values()) q.halt();
    for (const p of this.periodics.values()) p.halt();
    await Promise.allSettled([...this.queues.values()].map((q) => q.ticking));
    const all = [
      ...[...this.queues.values()].flatMap((q) => [...q.running.values()].map((r) => r.done)),
      ...[...this.periodics.values()].map((p) => p.current).filter((p): p is Promise<void> => p !== null),
    ];
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<'late'>((r) => {
      timer = setTimeout(() => r('late'), this.opts.stopTimeoutMs ?? 10_000);
    });
    const outcome = await Promise.race([Promise.allSettled(all).then(() => 'done' as const), bound]);
    clearTimeout(timer);
    if (outcome === 'late') {
      for (const q of this.queues.values()) {
        for (const r of q.running.values()) {
          await q.def.store.release(r.job, this.opts.owner).catch(() => undefined);
        }
      }
    }
  }
}
