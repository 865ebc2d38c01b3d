import type { AppContext } from '../../context';
import { createReceiverClient } from '../../integrations/webhook-receivers/post-webhook';
import type { JobRunner } from '../../jobs/index';
import type { BackgroundWork } from '../background-work';
import { WebhookDeliveryWorker } from './delivery-worker';
import { fanOutOnce, pruneFinishedDeliveries } from './fanout';
import { resolveWebhookDeliveryOptions, type WebhookDeliveryOptions } from './options';

export const WEBHOOKS_FANOUT = 'webhooks-fanout';
export const WEBHOOKS_PRUNE = 'webhooks-prune';

/**
 * Outbound webhooks in a worker: the fan-out of the outbox into deliveries (a periodic job of
 * the runner, once across processes) and the delivery worker (its own claim loop over
 * `webhook_deliveries`, in every worker process). Register before `runner.start()`.
 */
export function startWebhookDeliveries(ctx: AppContext, runner: JobRunner, partial: Partial<WebhookDeliveryOptions> = {}): BackgroundWork {
  const opts = resolveWebhookDeliveryOptions(partial);
  const client = createReceiverClient({
    allowPrivate: ctx.config.WEBHOOKS_ALLOW_PRIVATE_HOSTS,
    timeoutMs: opts.timeoutMs,
    connectionsPerOrigin: opts.perEndpoint,
    resolve: opts.resolve,
  });
  const worker = new WebhookDeliveryWorker(ctx, opts, client);
  runner.periodic({
    name: WEBHOOKS_FANOUT,
    everyMs: opts.fanoutEveryMs,
    async run(signal) {
      // The whole outbox, slice by slice; each slice's deliveries are sendable at once.
      while (!signal.aborted) {
        const consumed = await fanOutOnce(ctx.db, { batch: opts.fanoutBatch, statusesPerDelivery: opts.statusesPerDelivery });
        if (consumed) worker.wake();
        if (consumed < opts.fanoutBatch) break;
      }
    },
  });
  runner.periodic({ name: WEBHOOKS_PRUNE, everyMs: 3600_000, run: () => pruneFinishedDeliveries(ctx.db, opts.keepFinishedMs).then(() => undefined) });
  const unsubscribe = ctx.signals.onWebhookDeliveryQueued(() => worker.wake());
  worker.start();
  return {
    async stop() {
      unsubscribe();
      await worker.stop();
      await client.close();
    },
  };
}
