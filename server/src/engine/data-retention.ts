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

/** Where the walk of a table stands: the last row looked at, by its time and id. */
interface Cursor {
  t: string | null;
  id: number;
}

/**
 * One table's walk. `scan` reads the next `limit` rows past the cursor, oldest first, through an
 * index on the time column, each with `t` (its time), and `kept` when it must stay although past
 * its window. A statement deletes the rows it read that are not kept, by primary key: its work
 * is bounded by `limit` however many rows are kept, and the next statement starts after them.
 * `perOrganisation`: the walk is made once per organisation (its index leads with the organisation).
 */
interface Step {
  kind: RetentionKind;
  table: string;
  perOrganisation?: boolean;
  scan: (q: { cutoff: SQL; after: Cursor; limit: number; org: number | null }) => SQL;
}

/** Rows past `after` in (time, id) order; `time >= t` lets an index on the time column bound the scan. */
const pastCursor = (time: SQL, after: Cursor) =>
  after.t === null ? sql`true` : sql`${time} >= ${after.t}::timestamptz and (${time}, id) > (${after.t}::timestamptz, ${after.id}::bigint)`;

const STEPS: Step[] = [
  {
    // What Meta said about accounts, numbers and templates (and statuses of messages nobody
    // sent), as it said it. Nothing reads these rows (engine/campaigns/meta-events.ts).
    // meta_events_received_idx (0045).
    kind: 'meta_events',
    table: 'meta_events',
    scan: ({ cutoff, after, limit }) => sql`select id, received_at as t, false as kept from meta_events
      where received_at < ${cutoff} and ${pastCursor(sql`received_at`, after)}
      order by received_at, id limit ${limit}`,
  },
  {
    // Messages people wrote to the numbers, by Meta's time of the message, one organisation
    // after another through inbound_messages_user_idx (user_id, sent_at). Replies attributed to
    // a campaign that may still send (sending, paused, scheduled, pending approval, draft; an
    // automatic campaign while it is on or paused) are kept: its detail screen, reply counters
    // and follow-up groups read them.
    kind: 'inbound_messages',
    table: 'inbound_messages',
    perOrganisation: true,
    scan: ({ cutoff, after, limit, org }) => sql`select m.id, m.sent_at as t,
        (m.campaign_id is not null and exists (select 1 from campaigns c where c.id = m.campaign_id and c.status not in ${SETTLED})) as kept
      from inbound_messages m
      where m.user_id = ${org} and m.sent_at < ${cutoff} and ${pastCursor(sql`m.sent_at`, after)}
      order by m.sent_at, m.id limit ${limit}`,
  },
  {
    // Meta's webhook inbox: the inbox deletes each row in the transaction that applies it. What
    // stays is rows still waiting (never touched, however old) and rows given up after 8 failed
    // attempts (process_after = 'infinity'), walked in id order through webhook_events_queue_idx
    // and deleted once received more than the window ago.
    kind: 'webhook_inbox',
    table: 'webhook_events',
    scan: ({ cutoff, after, limit }) => sql`select id, null::timestamptz as t, received_at >= ${cutoff} as kept from webhook_events
      where process_after = 'infinity'::timestamptz and id > ${after.id}
      order by id limit ${limit}`,
  },
  {
    // The keys of link clicks applied (services/campaigns/link-clicks.ts): they only have to
    // outlive Meta's retries of the same webhook. link_click_events_received_idx (0052).
    kind: 'webhook_inbox',
    table: 'link_click_events',
    scan: ({ cutoff, after, limit }) => sql`select id, received_at as t, false as kept from link_click_events
      where received_at < ${cutoff} and ${pastCursor(sql`received_at`, after)}
      order by received_at, id limit ${limit}`,
  },
  {
    // Kommo's inbox: applied rows are deleted as they are applied; rows set aside with an error
    // (failed_at, kommo_inbox_failed_idx) go past the window. Rows still waiting (failed_at
    // null, among them the lead moves automatic campaigns need) are never read here.
    kind: 'webhook_inbox',
    table: 'kommo_inbox',
    scan: ({ cutoff, after, limit }) => sql`select id, failed_at as t, false as kept from kommo_inbox
      where failed_at < ${cutoff} and ${pastCursor(sql`failed_at`, after)}
      order by failed_at, id limit ${limit}`,
  },
  {
    // Finished items (done, failed; kommo_writeback_items_finished_idx, 0045) of write-backs
    // that finished before the cutoff with nothing left to write, whose late window is over (a
    // late reply or opt-out could no longer be added: `covers` of a deleted item would not stop
    // a second note), of campaigns that send nothing more. Never an automatic campaign's unless
    // it was cancelled: one switched on again would make its result items anew for every
    // settled recipient. The kommo_writebacks row itself always stays (without it a completed
    // campaign would be written back again).
    kind: 'writeback_items',
    table: 'kommo_writeback_items',
    scan: ({ cutoff, after, limit }) => sql`select i.id, i.updated_at as t,
        not exists (select 1 from kommo_writebacks w join campaigns c on c.id = w.campaign_id
          where w.campaign_id = i.campaign_id and w.finished_at < ${cutoff} and w.late_until < now()
            and (w.lease_expires_at is null or w.lease_expires_at < now())
            and c.status in ${SETTLED} and (c.audience_kind <> 'automatic' or c.status = 'cancelled')
            and not exists (select 1 from kommo_writeback_items p where p.campaign_id = w.campaign_id and p.stage not in ('done', 'failed'))) as kept
      from kommo_writeback_items i
      where i.stage in ('done', 'failed') and i.updated_at < ${cutoff} and ${pastCursor(sql`i.updated_at`, after)}
      order by i.updated_at, i.id limit ${limit}`,
  },
];

export interface RetentionSweepOptions {
  /** Rows read per statement (each deletes those of them that may go). */
  batch?: number;
  /** Statements per table (per organisation for inbound messages) and run; the rest waits for the next run. */
  maxBatches?: number;
  /** Checked between statements: a stopping process ends the run after the current one. */
  signal?: AbortSignal;
  /** Hears every statement's deletions (the /metrics counter). */
  onDeleted?: (kind: RetentionKind, rows: number) => void;
}

/**
 * Deletes what is past its window, table after table. Each statement is its own short
 * transaction: it reads the next `batch` rows past its window through an index on the time
 * column, oldest first, and deletes by primary key those that may go; a table is done when a
 * statement reads fewer than `batch`. Returns the rows deleted per kind. Nothing that the
 * sender, the webhook inboxes, the write-back or the automatic campaigns still read is deleted
 * (each step above; docs/OPERATIONS.md, "Retention"). No writer locks the rows deleted here, so
 * a run never waits on the sender nor makes it wait.
 */
export async function sweepRetention(db: Queryable, windows: RetentionWindows, opts: RetentionSweepOptions = {}): Promise<RetentionWindows> {
  const batch = opts.batch ?? 5_000;
  const maxBatches = opts.maxBatches ?? 1_000;
  const deleted: RetentionWindows = { meta_events: 0, inbound_messages: 0, webhook_inbox: 0, writeback_items: 0 };
  for (const step of STEPS) {
    const cutoff = sql`now() - make_interval(days => ${windows[step.kind]})`;
    const orgs = step.perOrganisation
      ? (await rowsOf<{ id: number }>(db, sql`select id from organizations order by id`)).map((o) => Number(o.id))
      : [null];
    for (const org of orgs) {
      let after: Cursor = { t: null, id: 0 };
      for (let i = 0; i < maxBatches && !opts.signal?.aborted; i++) {
        // The cursor's time travels as ISO text in UTC: exact to the microsecond (a Date keeps milliseconds).
        const [row] = await rowsOf<{ n: number | string; scanned: number | string; t: string | null; id: number | string | null }>(
          db,
          sql`with scanned as materialized (${step.scan({ cutoff, after, limit: batch, org })}),
                gone as (delete from ${sql.identifier(step.table)} where id = any(array(select id from scanned where not kept)) returning 1),
                last as (select t, id from scanned order by t desc nulls last, id desc limit 1)
              select (select count(*) from gone)::int as n, (select count(*) from scanned)::int as scanned,
                     (select to_char(t at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') from last) as t, (select id from last) as id`,
        );
        const n = Number(row?.n ?? 0);
        deleted[step.kind] += n;
        opts.onDeleted?.(step.kind, n);
        if (Number(row?.scanned ?? 0) < batch) break;
        after = { t: row?.t ?? null, id: Number(row?.id) };
        await nextTurn();
      }
      if (opts.signal?.aborted) break;
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
