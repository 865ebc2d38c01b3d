import { setImmediate as nextTurn } from 'node:timers/promises';
import { sql, type SQL } from 'drizzle-orm';
import {
  ACTIVITY_OUTCOME_LABEL,
  ACTIVITY_TARGET_LABEL,
  activityActionLabel,
  type ActivityCsvQuery,
  type ActivityEntryView,
  type ActivityPage,
  type ActivityQuery,
} from '@masivo/contract/activity';
import { ROLE_LABEL, type Role } from '@masivo/contract/organizations';
import type { CsvFormat } from '@masivo/contract/common';
import { isoOf, rowsOf, type Queryable } from '../../db/sql';
import { CSV_BOM, csvRow } from '../../lib/csv';

/**
 * Reading the activity log: the page's filtered, newest-first pages, a campaign's timeline and
 * the CSV. Every query names the organisation first, so it walks activity_log_org_at_idx (or
 * activity_log_target_idx for one target) and never sees another organisation's rows.
 */

type Filter = Omit<ActivityQuery, 'cursor' | 'limit'>;

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A bare date means its whole day (UTC): `from` its first instant, `to` up to its last. */
function bound(value: string, end: boolean): Date {
  if (!DAY.test(value)) return new Date(value);
  const day = new Date(`${value}T00:00:00.000Z`);
  return end ? new Date(day.getTime() + 86_400_000) : day;
}

function whereOf(orgId: number, f: Partial<Filter>): SQL {
  const parts: SQL[] = [sql`organization_id = ${orgId}`];
  if (f.user_id) parts.push(sql`actor_user_id = ${f.user_id}`);
  if (f.action) parts.push(sql`action = ${f.action}`);
  if (f.target_type) parts.push(sql`target_type = ${f.target_type}`);
  if (f.target_id) parts.push(sql`target_id = ${f.target_id}`);
  if (f.outcome) parts.push(sql`outcome = ${f.outcome}`);
  if (f.from) parts.push(sql`at >= ${bound(f.from, false).toISOString()}::timestamptz`);
  if (f.to) {
    // A date is inclusive of its whole day; an instant is the exact upper bound.
    const to = bound(f.to, true).toISOString();
    parts.push(DAY.test(f.to) ? sql`at < ${to}::timestamptz` : sql`at <= ${to}::timestamptz`);
  }
  return sql.join(parts, sql` and `);
}

const COLUMNS = sql`id::text as id, ${isoOf(sql`at`)} as at, actor_user_id, actor_name, actor_role, action, target_type,
  target_id, target_name, changes, detail, ip, user_agent, outcome, reason`;

interface Raw extends Omit<ActivityEntryView, 'changes' | 'detail' | 'actor_role'> {
  actor_role: string | null;
  changes: unknown;
  detail: unknown;
}

// PGlite and node-postgres both parse jsonb, but a driver that does not hands back text.
const json = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v) ?? null;

const toView = (r: Raw): ActivityEntryView => ({
  ...r,
  actor_user_id: r.actor_user_id === null ? null : Number(r.actor_user_id),
  actor_role: (r.actor_role as Role | null) ?? null,
  changes: json(r.changes),
  detail: json(r.detail),
});

/**
 * One page, newest first. The cursor is the id of the previous page's last entry; the next page
 * continues strictly after its (at, id), so entries written meanwhile never shift a page.
 */
export async function listActivity(db: Queryable, orgId: number, q: ActivityQuery): Promise<ActivityPage> {
  const after = q.cursor
    ? sql` and (at, id) < (select at, id from activity_log where id = ${q.cursor}::bigint and organization_id = ${orgId})`
    : sql``;
  const rows = await rowsOf<Raw>(
    db,
    sql`select ${COLUMNS} from activity_log where ${whereOf(orgId, q)}${after}
        order by at desc, id desc limit ${q.limit + 1}`,
  );
  const items = rows.slice(0, q.limit).map(toView);
  return { items, next_cursor: rows.length > q.limit ? items[items.length - 1]!.id : null };
}

export const ACTIVITY_CSV_COLUMNS = [
  'Fecha (UTC)',
  'Usuario',
  'Rol',
  'Acción',
  'Tipo de objeto',
  'ID del objeto',
  'Objeto',
  'Resultado',
  'Motivo',
  'Antes',
  'Después',
  'Detalle',
  'IP',
  'Navegador',
] as const;

const BATCH = 1_000;

/**
 * The filtered log as CSV, newest first, in batches (keyset on (at, id)) so a long log never
 * sits in memory. `counted.rows` grows as rows are written, for the export's own entry.
 */
export async function* exportActivityCsv(
  db: Queryable,
  p: { orgId: number; filter: Omit<ActivityCsvQuery, 'format'>; format: CsvFormat; counted: { rows: number } },
): AsyncGenerator<string> {
  yield CSV_BOM + csvRow([...ACTIVITY_CSV_COLUMNS], p.format);
  const where = whereOf(p.orgId, p.filter);
  let last: { at: string; id: string } | null = null;
  for (;;) {
    const after: SQL = last ? sql` and (at, id) < (${last.at}::timestamptz, ${last.id}::bigint)` : sql``;
    const batch: Array<Raw & { at_exact: string }> = await rowsOf<Raw & { at_exact: string }>(
      db,
      // at_exact keeps the microseconds the keyset needs; `at` is the millisecond ISO shown.
      sql`select ${COLUMNS}, at::text as at_exact from activity_log where ${where}${after}
          order by at desc, id desc limit ${BATCH}`,
    );
    if (!batch.length) return;
    let chunk = '';
    for (const raw of batch) {
      const e = toView(raw);
      chunk += csvRow(
        [
          e.at,
          e.actor_name,
          e.actor_role ? ROLE_LABEL[e.actor_role] : '',
          activityActionLabel(e.action),
          e.target_type ? (ACTIVITY_TARGET_LABEL[e.target_type] ?? e.target_type) : '',
          e.target_id,
          e.target_name,
          ACTIVITY_OUTCOME_LABEL[e.outcome],
          e.reason,
          e.changes?.before ? JSON.stringify(e.changes.before) : '',
          e.changes?.after ? JSON.stringify(e.changes.after) : '',
          e.detail ? JSON.stringify(e.detail) : '',
          e.ip,
          e.user_agent,
        ],
        p.format,
      );
    }
    p.counted.rows += batch.length;
    yield chunk;
    if (batch.length < BATCH) return;
    const tail = batch[batch.length - 1]!;
    last = { at: tail.at_exact, id: tail.id };
    // The embedded database answers on the event loop: a turn between batches keeps timers running.
    await nextTurn();
  }
}

/**
 * The retention sweep: deletes entries older than each organisation's retention, at most
 * `batch` rows per statement, until none is left or `maxBatches` ran (the next run goes on).
 * The only path that removes entries; no route does. Returns how many it deleted.
 */
export async function sweepActivity(
  db: Queryable,
  opts: { batch?: number; maxBatches?: number; signal?: AbortSignal; orgId?: number } = {},
): Promise<number> {
  const batch = opts.batch ?? 5_000;
  const maxBatches = opts.maxBatches ?? 100;
  const onlyOrg = opts.orgId ? sql` and o.id = ${opts.orgId}` : sql``;
  let total = 0;
  for (let i = 0; i < maxBatches && !opts.signal?.aborted; i++) {
    const gone = await rowsOf<{ id: string }>(
      db,
      // `= any(array(…))`: the ids are gathered first (an init plan) and deleted through the
      // primary key; `in (select … limit)` may be planned as a join that scans the whole log.
      sql`delete from activity_log where id = any(array(
            select a.id from organizations o
            join activity_log a on a.organization_id = o.id
              and a.at < now() - make_interval(days => o.activity_retention_days)
            where true${onlyOrg}
            limit ${batch}))
          returning id`,
    );
    total += gone.length;
    if (gone.length < batch) break;
    await nextTurn();
  }
  return total;
}
