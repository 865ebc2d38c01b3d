import type { AppContext } from '../../context';
import type { JobRunner } from '../../jobs/index';
import { kommoCatchUp, type CatchUpOptions } from './catch-up';
import { kommoInboundQueue, type InboundWorkerOptions } from './inbound-queue';

/**
 * Between full syncs: the inbound worker (drains each account's inbox of webhooks and catch-up
 * findings) and the catch-up (every minute), on the worker's job runner.
 */
export function registerKommoInbound(runner: JobRunner, ctx: AppContext, opts: { worker?: InboundWorkerOptions; catchUp?: CatchUpOptions } = {}): JobRunner {
  runner.queue(kommoInboundQueue(ctx, opts.worker));
  runner.periodic(kommoCatchUp(ctx, opts.catchUp));
  return runner;
}
