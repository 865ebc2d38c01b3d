import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { rowsOf } from '../../db/sql';

/** 32 random bytes, base64url (43 characters): the credential in the webhook's address. */
export const newHookSecret = (): string => randomBytes(32).toString('base64url');

/**
 * The account's hook secret, made now if it has none (accounts connected before webhooks). The
 * conditional update makes two processes agree on one secret.
 */
export async function ensureHookSecret(db: Db, accountId: number): Promise<string | null> {
  await db.execute(sql`update kommo_accounts set hook_secret = ${newHookSecret()} where id = ${accountId} and hook_secret is null`);
  const [row] = await rowsOf<{ hook_secret: string | null }>(db, sql`select hook_secret from kommo_accounts where id = ${accountId}`);
  return row?.hook_secret ?? null;
}

/** Where Kommo posts an account's webhooks. */
export function hookDestination(publicUrl: string, secret: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/api/kommo-hooks/${secret}`;
}
