import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { jsonParam, rowsOf } from '../../db/sql';
import { newMessageId } from '../../services/webhook-endpoints/webhook-signature';

interface OutboxRow {
  id: number | string;
  organization_id: number;
  event_type: string;
  campaign_id: number | null;
  data: unknown;
  created_at: string;
}

/**
 * Turns one slice of the outbox into deliveries, in one transaction (the slice is deleted in
 * the transaction that writes its deliveries, so a crash repeats it whole or not at all):
 * `message.status` entries grouped per campaign, at most `statusesPerDelivery` a delivery;
 * every other event one delivery. Each becomes one delivery per enabled endpoint of its
 * organisation subscribed to it, with its body and webhook-id fixed here for every attempt.
 * Returns how many outbox events it consumed.
 */
export async function fanOutOnce(db: Db, opts: { batch: number; statusesPerDelivery: number }): Promise<number> {
  return db.transaction(async (tx) => {
    const rows = await rowsOf<OutboxRow>(
      tx,
      sql`delete from webhook_outbox where id in (
            select id from webhook_outbox order by id limit ${opts.batch} for update skip locked)
          returning id, organization_id, event_type, campaign_id, data,
                    to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at`,
    );
    if (!rows.length) return 0;
    rows.sort((a, b) => Number(a.id) - Number(b.id));
    const messages: Array<{ org: number; type: string; msg_id: string; body: string }> = [];
    const statusGroups = new Map<string, OutboxRow[]>();
    for (const r of rows) {
      const data = typeof r.data === 'string' ? (JSON.parse(r.data) as unknown) : r.data;
      if (r.event_type === 'message.status') {
        const key = `${r.organization_id}:${r.campaign_id}`;
        const group = statusGroups.get(key) ?? [];
        group.push({ ...r, data });
        statusGroups.set(key, group);
        continue;
      }
      messages.push(message(r.organization_id, r.event_type, r.created_at, data));
    }
    for (const group of statusGroups.values()) {
      for (let i = 0; i < group.length; i += opts.statusesPerDelivery) {
        const chunk = group.slice(i, i + opts.statusesPerDelivery);
        const first = chunk[0]!;
        messages.push(
          message(first.organization_id, 'message.status', chunk[chunk.length - 1]!.created_at, {
            campaign_id: first.campaign_id,
            statuses: chunk.map((c) => c.data),
          }),
        );
      }
    }
    await tx.execute(sql`
      insert into webhook_deliveries (endpoint_id, organization_id, msg_id, event_type, body)
      select e.id, v.org, v.msg_id, v.type, v.body
      from jsonb_to_recordset(${jsonParam(messages)}) as v(org int, type text, msg_id text, body text)
      join webhook_endpoints e on e.organization_id = v.org and e.enabled and v.type = any(e.events)`);
    return rows.length;
  });
}

/** The Standard Webhooks payload: `{ type, timestamp, data }`, thin (ids, statuses, no personal data beyond an opt-out's phone). */
function message(org: number, type: string, at: string, data: unknown) {
  return { org, type, msg_id: newMessageId(), body: JSON.stringify({ type, timestamp: at, data }) };
}

/** Finished deliveries older than `keepMs` go, with their attempts (in slices). */
export async function pruneFinishedDeliveries(db: Db, keepMs: number, slice = 5_000): Promise<number> {
  let deleted = 0;
  for (;;) {
    const rows = await rowsOf(db, sql`
      delete from webhook_deliveries where id in (
        select id from webhook_deliveries where state <> 'pending' and finished_at < now() - make_interval(secs => ${keepMs / 1000}) limit ${slice})
      returning id`);
    deleted += rows.length;
    if (rows.length < slice) return deleted;
  }
}
