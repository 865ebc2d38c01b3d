import type { AppContext } from '../context';
import { startCampaignEngine } from './campaigns/index';
import type { BackgroundWork } from './background-work';
import { startKommoSyncRunner } from './kommo-sync/sync-runner';
import { startKommoWritebackRunner } from './kommo-writeback/writeback-runner';

type Starter = (ctx: AppContext) => Promise<BackgroundWork> | BackgroundWork;

/**
 * The jobs a worker process runs (ROLE=worker or all): the Kommo sync runner, the
 * campaign scheduler and sender, the webhook inbox. Each is started here, stopped in reverse.
 */
const STARTERS: Starter[] = [
  (ctx) => startKommoSyncRunner(ctx),
  (ctx) => startCampaignEngine(ctx),
  (ctx) => startKommoWritebackRunner(ctx),
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
