import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { preparedRows, rowsOf } from '../../db/sql';

/**
 * The webhook route's two statements. They live in the service layer (not in the route, not in
 * the engine) so the route stays thin and still never imports the engine that reads the rows
 * back (`engine/campaigns/webhook-inbox.ts`).
 */

/** Whether some WhatsApp account of any tenant subscribed with this verify token. */
export async function isKnownVerifyToken(db: Db, token: string): Promise<boolean> {
  if (token === '') return false;
  const found = await rowsOf(db, sql`select 1 from whatsapp_accounts where webhook_verify_token = ${token} limit 1`);
  return found.length > 0;
}

interface Waiting {
  payload: string;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** Per database: the POSTs waiting for the insert in flight to finish. */
const queues = new WeakMap<Db, { waiting: Waiting[]; busy: boolean }>();

/**
 * Stores a signed, cleaned payload for the inbox to apply; `payload` is its JSON text.
 * Resolves once the row is committed, so the route answers Meta only for what is stored.
 * POSTs that arrive while an insert is in flight are stored together by the next one (a
 * group commit: one statement for many, and no waiting at all when the intake is quiet).
 */
export function storeWebhook(db: Db, payload: string): Promise<void> {
  let queue = queues.get(db);
  if (!queue) queues.set(db, (queue = { waiting: [], busy: false }));
  const q = queue;
  return new Promise<void>((resolve, reject) => {
    q.waiting.push({ payload, resolve, reject });
    if (!q.busy) void drain(db, q);
  });
}

async function drain(db: Db, q: { waiting: Waiting[]; busy: boolean }) {
  q.busy = true;
  try {
    // Let the requests already received reach the queue first (on the embedded database a
    // statement holds the event loop, so they are parsed only after it).
    await new Promise((r) => setImmediate(r));
    while (q.waiting.length) {
      const batch = q.waiting.splice(0, MAX_GROUP);
      try {
        await insertPayloads(db, batch.map((w) => w.payload));
        for (const w of batch) w.resolve();
        if (!q.waiting.length) await new Promise((r) => setImmediate(r));
      } catch (err) {
        if (batch.length === 1) {
          batch[0].reject(err);
          continue;
        }
        // One payload the database refuses must not fail the others: each on its own.
        for (const w of batch) {
          try {
            await insertPayloads(db, [w.payload]);
            w.resolve();
          } catch (one) {
            w.reject(one);
          }
        }
      }
    }
  } finally {
    q.busy = false;
  }
}

/** At most this many POSTs in one insert (Meta's POSTs are small; this bounds the statement). */
const MAX_GROUP = 200;

async function insertPayloads(db: Db, payloads: string[]): Promise<void> {
  if (payloads.length === 1) {
    await preparedRows(db, sql`insert into webhook_events (payload) values (${payloads[0]}::jsonb)`);
    return;
  }
  // Each payload is JSON text already: joined, they are one JSON array, stored in arrival order.
  await preparedRows(db, sql`insert into webhook_events (payload)
      select e.value from jsonb_array_elements(${`[${payloads.join(',')}]`}::jsonb) with ordinality as e(value, i)
      order by e.i`);
}
