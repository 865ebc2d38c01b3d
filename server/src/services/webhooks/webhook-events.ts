import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { rowsOf } from '../../db/sql';

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

/** Stores a signed, cleaned payload for the inbox to apply; `payload` is its JSON text. */
export async function storeWebhook(db: Db, payload: string): Promise<void> {
  await db.execute(sql`insert into webhook_events (payload) values (${payload}::jsonb)`);
}
