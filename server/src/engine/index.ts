import type { AppContext } from '../context';

export interface BackgroundWork {
  stop(): Promise<void>;
}

type Starter = (ctx: AppContext) => Promise<BackgroundWork> | BackgroundWork;

/**
 * The jobs a worker process runs (ROLE=worker or all): the Kommo sync runner, the
 * campaign scheduler and sender, the webhook inbox. Each is started here, stopped in reverse.
 */
const STARTERS: Starter[] = [];

export async function startBackgroundWork(ctx: AppContext): Promise<BackgroundWork> {
  const started: BackgroundWork[] = [];
  for (const start of STARTERS) started.push(await start(ctx));
  return {
    async stop() {
      for (const work of started.reverse()) await work.stop();
    },
  };
}
