import type { KommoLeadLookup } from '../../integrations/kommo/lead-lookup';
import { LEASE_WINDOW_MARGIN_MS } from './leases';

/** Tunables of the campaign engine; production uses the defaults, tests and benches shorten them. */
export interface CampaignEngineOptions {
  /** Scheduler period: due scheduled campaigns, completion, in-flight recovery. */
  tickMs: number;
  /** How often finished split tests ask Meta's template comparison (a job of its own). */
  splitCompareMs: number;
  /** A row in flight longer than this, with no webhook, becomes unknown. > responseTimeoutMs. */
  graceMs: number;
  /** Sender lease length and renewal period. */
  leaseTtlMs: number;
  leaseRenewMs: number;
  /** How often the lease manager looks for numbers with work. */
  leaseScanMs: number;
  /** Sender results are written in one batch per this period. */
  flushMs: number;
  /** How often a sender re-reads which campaigns are sending (a pause elsewhere is seen within this). */
  refreshMs: number;
  /**
   * How often a sender re-reads its number (rate, throughput level, quality, active): a new
   * throughput level or configured rate applies within this, without a restart.
   */
  accountRefreshMs: number;
  /** Webhook inbox poll period (an in-process webhook wakes it at once). */
  inboxPollMs: number;
  inboxBatch: number;
  /** HTTP to Meta. */
  connectTimeoutMs: number;
  responseTimeoutMs: number;
  /** A sender with no sending campaign for this long gives its lease back. */
  idleReleaseMs: number;
  /**
   * Extra room in each one-second window for a receiver that timestamps requests late when
   * busy (see pacer.ts). 0 for Meta; tests on a loaded machine raise it.
   */
  pacingJitterMs: number;
  /** Which parts to run (tests may run only some). */
  runScheduler: boolean;
  runSenders: boolean;
  runInbox: boolean;
  graphUrl?: string;
  /** How often automatic campaigns' due events are looked up in Kommo. */
  automationPollMs: number;
  /** The Kommo lead look-up of automatic campaigns (tests pass one on the simulator); the process's by default. */
  leadLookup?: KommoLeadLookup;
}

export const DEFAULT_ENGINE_OPTIONS: CampaignEngineOptions = {
  tickMs: 500,
  splitCompareMs: 60_000,
  graceMs: 120_000,
  leaseTtlMs: 5_000,
  leaseRenewMs: 1_000,
  leaseScanMs: 250,
  flushMs: 100,
  refreshMs: 250,
  accountRefreshMs: 5_000,
  inboxPollMs: 200,
  inboxBatch: 100,
  connectTimeoutMs: 5_000,
  responseTimeoutMs: 15_000,
  idleReleaseMs: 3_000,
  pacingJitterMs: 0,
  runScheduler: true,
  runSenders: true,
  runInbox: true,
  automationPollMs: 1_000,
};

export function resolveEngineOptions(partial: Partial<CampaignEngineOptions> = {}): CampaignEngineOptions {
  const opts = { ...DEFAULT_ENGINE_OPTIONS, ...partial };
  // A live request must never be declared unknown while it can still be answered.
  opts.graceMs = Math.max(opts.graceMs, opts.responseTimeoutMs + opts.flushMs * 5 + 1_000);
  // The holder stops a window (and an unanswered request's bound) before its lease could
  // pass to someone else, and still has two renewals' worth of lease to work with.
  opts.leaseTtlMs = Math.max(opts.leaseTtlMs, opts.leaseRenewMs * 2 + LEASE_WINDOW_MARGIN_MS + 300);
  return opts;
}
