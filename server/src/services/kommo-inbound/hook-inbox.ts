import { sql } from 'drizzle-orm';
import type { KommoHookBody } from '@masivo/contract/kommo-inbound';
import type { Db } from '../../db/client';
import { jsonParam, rowsOf } from '../../db/sql';

export interface HookAccount {
  id: number;
  subdomain: string;
}

/**
 * The account whose webhook address carries this secret. Found through the unique index: the
 * time taken says nothing about how much of a guess was right (no byte-by-byte comparison).
 */
export async function findHookAccount(db: Db, secret: string): Promise<HookAccount | null> {
  const [row] = await rowsOf<{ id: number; subdomain: string }>(db, sql`select id, subdomain from kommo_accounts where hook_secret = ${secret}`);
  return row ? { id: Number(row.id), subdomain: row.subdomain } : null;
}

/** What of a webhook is worth a row: lead moves or new leads, contacts added, edited or deleted. */
export function hookHasWork(body: KommoHookBody): boolean {
  const n = (list: unknown[] | undefined) => list?.length ?? 0;
  return n(body.leads?.status) + n(body.leads?.add) + n(body.contacts?.add) + n(body.contacts?.update) + n(body.contacts?.delete) > 0;
}

/**
 * Stores a parsed webhook for the worker and notes when the account last heard from Kommo. Only
 * what the contract's schema kept is stored (unknown fields and entity kinds are dropped);
 * a body with nothing to do only moves the time.
 */
export async function storeHookBody(db: Db, account: HookAccount, body: KommoHookBody): Promise<boolean> {
  const work = hookHasWork(body);
  await db.transaction(async (tx) => {
    await tx.execute(sql`update kommo_accounts set hook_last_received_at = now() where id = ${account.id}`);
    if (work) await tx.execute(sql`insert into kommo_inbox (account_id, source, body) values (${account.id}, 'webhook', ${jsonParam(body)})`);
  });
  return work;
}
