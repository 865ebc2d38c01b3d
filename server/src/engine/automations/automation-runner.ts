import type { AppContext } from '../../context';
import type { KommoLeadLookup } from '../../integrations/kommo/lead-lookup';
import type { JobRunner } from '../../jobs/index';
import { resolveDueEvents } from './resolve-due';

export const AUTOMATION_DUE = 'automation-due';

/**
 * Automatic campaigns' due events, as a periodic job of the engine's runner: once per period
 * across processes, so an event is looked up by one worker. Nothing here touches the sender's
 * claim: an event becomes an ordinary pending recipient and the sender of its number is woken.
 */
export function registerAutomationDue(
  runner: JobRunner,
  ctx: AppContext,
  opts: { everyMs: number; lookup?: KommoLeadLookup; log: (msg: string, err?: unknown) => void; onSending: (campaignIds: number[]) => void },
): void {
  runner.periodic({
    name: AUTOMATION_DUE,
    everyMs: opts.everyMs,
    run: async (signal) => {
      const sending = await resolveDueEvents({ db: ctx.db, secrets: ctx.secrets, lookup: opts.lookup ?? ctx.kommo.leads, log: opts.log, signal });
      if (sending.length) opts.onSending(sending);
    },
  });
}
