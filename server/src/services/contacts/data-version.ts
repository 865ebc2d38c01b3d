import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { rowsOf } from '../../db/sql';

/**
 * The account's contact data version (0009_contacts.sql): every statement that writes its
 * contacts bumps it in the same transaction. Read it BEFORE computing a figure and key the figure
 * by it: the figure then reflects that version or a newer one, never an older one.
 */
export async function contactDataVersion(db: Db, accountId: number): Promise<number> {
  const [row] = await rowsOf<{ version: number | string }>(db, sql`select version from contact_data_versions where account_id = ${accountId}`);
  return Number(row?.version ?? 0);
}

/**
 * Figures derived from an account's contacts, kept while the account's data version is unchanged.
 * Bounded (oldest entry out first); one per process, which is safe because every hit is checked
 * against the version in the database, whichever process changed the data.
 */
export function createVersionedCache<T>(maxEntries: number) {
  const entries = new Map<string, { version: number; value: T }>();
  return {
    async get(accountId: number, version: number, key: string, compute: () => Promise<T>): Promise<T> {
      const id = `${accountId}:${key}`;
      const hit = entries.get(id);
      if (hit && hit.version === version) return hit.value;
      const value = await compute();
      entries.delete(id);
      entries.set(id, { version, value });
      // Maps iterate in insertion order: the first key is the oldest.
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
      return value;
    },
    clear: () => entries.clear(),
    get size() {
      return entries.size;
    },
  };
}
