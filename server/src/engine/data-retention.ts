import { setImmediate as nextTurn } from 'node:timers/promises';
import { sql, type SQL } from 'drizzle-orm';
import type { Config } from '../config';
import type { AppContext } from '../context';
import { rowsOf, type Queryable } from '../db/sql';
import type { PeriodicDefinition } from '../jobs/index';

/** The kinds of data with a retention window, as `/metrics` labels them (`kind`). */
export type RetentionKind = 'meta_events' | 'inbound_messages' | 'webhook_inbox' | 'writeback_items';
export const RETENTION_KINDS: readonly RetentionKind[] = ['meta_events', 'inbound_messages', 'webhook_inbox', 'writeback_items'];

/** Days each kind is kept (the RETENTION_*_DAYS settings). */
export type RetentionWindows = Record<RetentionKind, number>;

export function retentionWindows(config: Config): RetentionWindows {
  return {
    meta_events: config.RETENTION_META_EVENTS_DAYS,
    inbound_messages: config.RETENTION_INBOUND_MESSAGES_DAYS,
    webhook_inbox: config.RETENTION_WEBHOOK_INBOX_DAYS,
    writeback_items: config.RETENTION_WRITEBACK_DAYS,
  };
}

/** Campaigns that send nothing more: the only ones whose replies and write-back items may go. */
const SETTLED = sql`('completed', 'cancelled')`;

/**
 * One bounded delete: at most `limit` rows past `cutoff`, picked through an index on the time
 * column, deleted by primary key. Each runs as its own statement (its own short transaction).
 */
type Step = { kind: RetentionKind; table: string; pick: (cutoff: SQL, limit: number) => SQL };

const STEPS: Step[] = [
  {
    // What Meta said about accounts, numbers and templates (and odd statuses), as it said it.
    // Nothing reads these rows (engine/campaigns/meta-events.ts). meta_events_received_idx (0045).
    kind: 'meta_events',
    table: 'meta_events',
    pick: (cutoff, limit) => sql`select id from meta_events where received_at < ${cutoff} limit ${limit}`,
  },
  {
    // Messages people wrote to the numbers, by Meta's time of the message, through
    // inbound_messages_user_idx (user_id, sent_at) one organisation after another. Replies
    // attributed to a campaign that may still send (sending, paused, scheduled, pending
    // approval, draft; an automatic campaign while it is on or paused) are kept: its detail
    // screen, reply counters and follow-up groups read them.
    kind: 'inbound_messages',
    table: 'inbound_messages',
    pick: (cutoff, limit) => sql`select m.id from organizations o
      join inbound_messages m on m.user_id = o.id and m.sent_at < ${cutoff}
      where m.campaign_id is null
         or not exists (select 1 from campaigns c where c.id = m.campaign_id and c.status not in ${SETTLED})
      limit ${limit}`,
  },
  {
    // Meta's webhook inbox: applied rows are deleted by the inbox as it applies them; what stays
    // is rows still waiting (kept, however old) and rows given up after 8 failed attempts
    // (process_after = 'infinity', webhook_events_queue_idx), deleted past the window.
    kind: 'webhook_inbox',
    table: 'webhook_events',
    pick: (cutoff, limit) => sql`select id from webhook_events
      where process_after = 'infinity'::timestamptz and received_at < ${cutoff} limit ${limit}`,
  },
  {
    // Kommo's inbox: applied rows are deleted as they are applied; rows set aside with an error
    // (failed_at, kommo_inbox_failed_idx) go past the window. Rows still waiting (failed_at null,
    // among them the lead moves automatic campaigns need) are never touched.
    kind: 'webhook_inbox',
    table: 'kommo_inbox',
    pick: (cutoff, limit) => sql`select id from kommo_inbox where failed_at < ${cutoff} limit ${limit}`,
  },
  {
    // Items of Kommo write-backs that finished before the cutoff, whose late window is over
    // (no late reply or opt-out can be added: `covers` of the deleted items would no longer
    // stop a second note) and of campaigns that send nothing more. Never an automatic
    // campaign's unless it was cancelled: one switched on again would make its result items
    // anew for every settled recipient. The kommo_writebacks row itself always stays (without
    // it a completed campaign would be written back again). Driven by the write-backs (one row
    // per campaign), their items through kommo_writeback_items_progress_idx.
    kind: 'writeback_items',
    table: 'kommo_writeback_items',
    pick: (cutoff, limit) => sql`select i.id from kommo_writebacks w
      join campaigns c on c.id = w.campaign_id
      join kommo_writeback_items i on i.campaign_id = w.campaign_id and i.stage in ('done', 'failed') and i.updated_at < ${cutoff}
      where w.finished_at < ${cutoff} and w.late_until < now()
        and (w.lease_expires_at is null or w.lease_expires_at < now())
        and c.status in ${SETTLED} and (c.audience_kind <> 'automatic' or c.status = 'cancelled')
        and not exists (select 1 from kommo_writeback_items p where p.campaign_id = w.campaign_id and p.stage not in ('done', 'failed'))
      limit ${limit}`,
  },
];

export interface RetentionSweepOptions {
  /** Rows per statement. */
  batch?: number;
  /** Statements per table and run; what is left waits for the next run. */
  maxBatches?: number;
  /** Checked between statements: a stopping process ends the run after the current one. */
  signal?: AbortSignal;
  /** Hears every statement's deletions (the /metrics counter). */
  onDeleted?: (kind: RetentionKind, rows: number) => void;
  /** Only these kinds (tests). */
  kinds?: readonly RetentionKind[];
}

/**
 * Deletes what is past its window, kind after kind, in statements of `batch` rows each (its
 * own short transaction, rows picked through an index on the time column, deleted by primary
 * key), moving to the next table when a statement deletes fewer than `batch`. Returns the rows
 * deleted per kind. Nothing that the sender, the webhook inboxes, the write-back or the
 * automatic campaigns still read is picked (see each step above; docs/OPERATIONS.md,
 * "Retention"). The rows these tables hold are never locked by a writer, so a run never waits
 * on the sender nor makes it wait.
 */
export async function sweepRetention(db: Queryable, windows: RetentionWindows, opts: RetentionSweepOptions = {}): Promise<RetentionWindows> {
  const batch = opts.batch ?? 5_000;
  const maxBatches = opts.maxBatches ?? 1_000;
  const deleted: RetentionWindows = { meta_events: 0, inbound_messages: 0, webhook_inbox: 0, writeback_items: 0 };
  for (const step of STEPS) {
    if (opts.kinds && !opts.kinds.includes(step.kind)) continue;
    const cutoff = sql`now() - make_interval(days => ${windows[step.kind]})`;
    for (let i = 0; i < maxBatches && !opts.signal?.aborted; i++) {
      const [row] = await rowsOf<{ n: number | string }>(
        db,
        sql`with gone as (delete from ${sql.identifier(step.table)} where id in (${step.pick(cutoff, batch)}) returning 1)
            select count(*)::int as n from gone`,
      );
      const n = Number(row?.n ?? 0);
      deleted[step.kind] += n;
      opts.onDeleted?.(step.kind, n);
      if (n < batch) break;
      await nextTurn();
    }
  }
  return deleted;
}

/**
 * Retention of Meta's events, inbound messages, the webhook inboxes' set-aside rows and
 * finished write-back items: once a day (across processes, through the job runner's
 * `job_schedules` row), in the style of the activity log's retention (activity-retention.ts).
 */
export function dataRetention(ctx: AppContext, opts: Pick<RetentionSweepOptions, 'batch' | 'maxBatches'> = {}): PeriodicDefinition {
  return {
    name: 'data-retention',
    everyMs: 24 * 3600_000,
    // Renewed while it runs; a run whose process died is taken over after 15 minutes, not 3 days.
    leaseMs: 15 * 60_000,
    run: async (signal) => {
      const deleted = await sweepRetention(ctx.db, retentionWindows(ctx.config), {
        ...opts,
        signal,
        onDeleted: (kind, rows) => ctx.metrics.retentionDeleted(kind, rows),
      });
      if (Object.values(deleted).some((n) => n > 0)) ctx.log.info({ deleted }, 'retention: rows past their window deleted');
    },
  };
}
