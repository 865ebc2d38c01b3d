import type { Db, Tx } from '../../db/client';

/**
 * A lead entering a stage, or created in one, as Kommo reported it between syncs (one shape,
 * owned by the automatic campaigns that consume it). The webhook and the catch-up both report the
 * same move, and with the same `at`: the change's own time (the webhook's `updated_at`/
 * `last_modified`, or `created_at` for a new lead; the event's `created_at`), so (lead, status,
 * at) names one move whichever source told it.
 */
export type { LeadStageEvent } from '../../services/automations/lead-events';
import type { LeadStageEvent } from '../../services/automations/lead-events';

/**
 * What the automation does with lead events. Called inside the inbound worker's transaction
 * (`db` is that transaction): what it writes commits together with the inbox rows leaving, so
 * a crash repeats both or neither. Each (lead, status, at) reaches it once per account (the
 * worker keeps the moves it handed over for 3 days); it may deduplicate again on its side.
 * It should only record and queue work: Kommo look-ups belong in its own jobs.
 */
export type LeadEventsHandler = (
  db: Db | Tx,
  account: { organizationId: number; accountId: number },
  events: LeadStageEvent[],
) => Promise<void>;

/** Until the automatic campaigns are wired in (engine/index.ts), lead events are dropped. */
export const ignoreLeadEvents: LeadEventsHandler = async () => undefined;
