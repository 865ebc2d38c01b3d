import type { HostResolver } from '../../lib/blocked-address';

/** The tunables of outbound webhook deliveries; tests shorten the delays. */
export interface WebhookDeliveryOptions {
  /**
   * The wait before each retry after a failed attempt: the first attempt is immediate, then
   * 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h; after the last one the delivery has failed.
   */
  retryDelaysMs: readonly number[];
  /** An endpoint failing without a success for this long is disabled with the reason (3 days). */
  disableAfterMs: number;
  /** Deliveries in flight in this process, all endpoints together. */
  maxConcurrent: number;
  /** Deliveries in flight to one endpoint in this process. */
  perEndpoint: number;
  /** How often due deliveries are looked for (a new delivery in this process wakes at once). */
  pollMs: number;
  /** A claim not settled within this long is taken over by another process (well above the timeout). */
  leaseMs: number;
  /** Timeout of one attempt (connect, answer and body). */
  timeoutMs: number;
  /** How often the outbox is fanned out into deliveries (once across processes). */
  fanoutEveryMs: number;
  /** Outbox events taken per fan-out transaction. */
  fanoutBatch: number;
  /** `message.status` entries per delivery. */
  statusesPerDelivery: number;
  /** How long `stop()` waits for attempts in flight before giving their leases back. */
  stopTimeoutMs: number;
  /** Finished deliveries (and their attempts) are deleted after this long. */
  keepFinishedMs: number;
  /** DNS for the receivers (tests only); the system's by default. */
  resolve?: HostResolver;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

export const DEFAULT_WEBHOOK_DELIVERY_OPTIONS: WebhookDeliveryOptions = {
  retryDelaysMs: [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR],
  disableAfterMs: 3 * 24 * HOUR,
  maxConcurrent: 32,
  perEndpoint: 4,
  pollMs: 1_000,
  leaseMs: 60 * SECOND,
  timeoutMs: 10 * SECOND,
  fanoutEveryMs: 250,
  fanoutBatch: 5_000,
  statusesPerDelivery: 100,
  stopTimeoutMs: 1_500,
  keepFinishedMs: 30 * 24 * HOUR,
};

export const resolveWebhookDeliveryOptions = (partial: Partial<WebhookDeliveryOptions> = {}): WebhookDeliveryOptions => ({
  ...DEFAULT_WEBHOOK_DELIVERY_OPTIONS,
  ...partial,
});
