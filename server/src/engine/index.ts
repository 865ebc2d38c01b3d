import type { AppContext } from '../context';
import { JobRunner, pruneFinishedJobs } from '../jobs/index';
import { campaignRollups } from './campaign-rollups';
import { activityRetention } from './activity-retention';
import { dataRetention } from './data-retention';
import { pruneIdempotencyKeys } from '../services/api-keys/idempotency';
import { pruneRateWindows } from '../services/api-keys/request-windows';
import { startCampaignEngine } from './campaigns/index';
import type { BackgroundWork } from './background-work';
import { registerKommoInbound } from './kommo-inbound/index';
import { recordLeadEvents } from '../services/automations/lead-events';
import { kommoSyncQueue } from './kommo-sync/sync-runner';
import { registerKommoWriteback } from './kommo-writeback/writeback-runner';
import { startWebhookDeliveries } from './webhook-deliveries/index';

type Starter = (ctx: AppContext) => Promise<BackgroundWork> | BackgroundWork;

/**
 * The jobs a worker process runs (ROLE=worker or all): one job runner for the Kommo sync, the
 * write-back and the periodic steps, and the campaign sender (with its own claim loop, for exact
 * pacing and exactly-once sends) with the webhook inbox, and the outbound webhook deliveries. Each is started here, stopped in reverse.
 */
const STARTERS: Starter[] = [
  async (ctx) => {
    // A SIGTERM leaves the background work about 4 s of the 8 s shutdown budget (server.ts):
    // jobs still running after 3 s give their leases back and are resumed by another process.
    const runner = new JobRunner({ db: ctx.db, log: ctx.log, owner: ctx.instanceId, stopTimeoutMs: 3_000 });
    runner.queue(kommoSyncQueue(ctx));
    registerKommoWriteback(runner, ctx);
    // Webhooks and the catch-up between syncs; lead moves go to the automatic campaigns.
    registerKommoInbound(runner, ctx, { worker: { onLeadEvents: recordLeadEvents } });
    runner.periodic(activityRetention(ctx));
    // Meta's events, inbound messages, set-aside inbox rows, finished write-back items: daily.
    runner.periodic(dataRetention(ctx));
    // The charts' rollups, folded from the recipients off the send path every few seconds.
    runner.periodic(campaignRollups(ctx));
    runner.periodic({ name: 'jobs-prune', everyMs: 3600_000, run: () => pruneFinishedJobs(ctx.db).then(() => undefined) });
    // The public API's kept answers (24 h) and finished rate windows.
    runner.periodic({ name: 'public-api-prune', everyMs: 3600_000, run: async () => void (await pruneIdempotencyKeys(ctx.db), await pruneRateWindows(ctx.db)) });
    const engine = startCampaignEngine(ctx, {}, runner);
    const webhooks = startWebhookDeliveries(ctx, runner);
    await runner.start();
    return {
      async stop() {
        await webhooks.stop();
        await engine.stop();
        await runner.stop();
      },
    };
  },
];

export async function startBackgroundWork(ctx: AppContext): Promise<BackgroundWork> {
  const started: BackgroundWork[] = [];
  for (const start of STARTERS) started.push(await start(ctx));
  return {
    async stop() {
      for (const work of started.reverse()) await work.stop();
    },
  };
}
