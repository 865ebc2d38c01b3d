import { sql } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { rowsOf } from '../../db/sql';
import type { KommoClient } from '../../integrations/kommo/client';
import { tableStore, type QueueDefinition } from '../../jobs/index';
import { KOMMO_INBOUND_QUEUE, kommoInboundJobs, queueInboxDrain } from '../../services/kommo-inbound/drain-jobs';
import { drainInbox } from './drain';
import { ignoreLeadEvents, type LeadEventsHandler } from './lead-events';

export interface InboundWorkerOptions {
  client?: Pick<KommoClient, 'contactsByIds'>;
  onLeadEvents?: LeadEventsHandler;
  pollMs?: number;
  leaseMs?: number;
  retryBaseMs?: number;
}

/**
 * The inbound worker: drains one account's inbox per job, oldest row first. Kommo failures
 * fail the job and the runner retries it (30 s, doubling up to 15 min, then kept until the
 * next row or catch-up queues the account again); the rows wait in the inbox meanwhile.
 */
export function kommoInboundQueue(ctx: AppContext, opts: InboundWorkerOptions = {}): QueueDefinition<{ accountId: number }> {
  const base = tableStore(ctx.db, kommoInboundJobs);
  const onLeadEvents = opts.onLeadEvents ?? ignoreLeadEvents;
  return {
    name: KOMMO_INBOUND_QUEUE,
    store: {
      ...base,
      async complete(job, owner) {
        await base.complete(job, owner);
        // A row stored while this job was finishing was absorbed by it: queue the account again.
        const [left] = await rowsOf(ctx.db, sql`select 1 from kommo_inbox where account_id = ${job.payload.accountId} and failed_at is null limit 1`);
        if (left) await queueInboxDrain(ctx.db, job.payload.accountId);
      },
    },
    leaseMs: opts.leaseMs ?? 30_000,
    maxConcurrent: 4,
    pollMs: opts.pollMs ?? 1000,
    retry: { baseMs: opts.retryBaseMs ?? 30_000, maxMs: 15 * 60_000, maxAttempts: 8 },
    run: (job, signal, owner) =>
      drainInbox(
        {
          db: ctx.db,
          client: opts.client ?? ctx.kommo.sync,
          openToken: (sealed) => ctx.secrets.open(sealed),
          onLeadEvents,
          log: ctx.log,
          jobId: job.id,
          owner,
        },
        job.payload.accountId,
        signal,
      ),
    subscribe(control) {
      return ctx.signals.onKommoInboxStored(() => control.wake());
    },
  };
}
