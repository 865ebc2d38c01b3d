import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import type { KommoClient } from '../../integrations/kommo/client';
import { KOMMO_IDS_PER_LOOKUP } from '../../integrations/kommo/client';
import type { KommoCredentials } from '../../integrations/kommo/types';
import { mapContact, type MapperOptions } from './contact-mapper';
import { upsertContacts } from './contact-writer';
import { SyncStopError } from './sync-errors';
import { rowsOf } from '../../db/sql';

/** A routine full sync may remove at most this share of an account's contacts at once… */
export const MAX_PRUNE_SHARE = 0.3;
/** …unless the account is this small, where a few deletions are a large share. */
export const PRUNE_GUARD_MIN_CONTACTS = 50;
/** Unseen contacts asked for by id before deletion; past it (only after an explicit or reset sync) they are trusted gone. */
export const MAX_RECHECK_IDS = 10_000;

export function pruneRefusedMessage(unseen: number, total: number): string {
  return (
    `La sincronización completa no eliminó ningún contacto: Kommo dejó de listar ${unseen} de ${total} ` +
    `(más del ${Math.round(MAX_PRUNE_SHARE * 100)} %), lo que suele indicar un fallo de Kommo y no un borrado real. ` +
    'Si los eliminaste en Kommo, inicia una sincronización completa manual para aplicarlo.'
  );
}

/**
 * Before a full sync deletes what it did not see: refuses a mass deletion on a routine sync,
 * and asks Kommo by id for every unseen contact, keeping (and refreshing) those it still has.
 * What remains unseen is what Kommo really no longer has.
 * `explicit`: the operator asked for a full sync, or the account's subdomain or phone field
 * changed; a large deletion is then expected.
 */
export async function confirmUnseen(p: {
  db: Db;
  client: KommoClient;
  creds: KommoCredentials;
  account: { id: number; userId: number };
  generation: number;
  explicit: boolean;
  mapper: MapperOptions;
  signal: AbortSignal;
}): Promise<void> {
  const { db, account, generation } = p;
  const [counts] = await rowsOf<{ total: number; unseen: number }>(
    db,
    sql`select count(*)::int as total, (count(*) filter (where sync_generation <> ${generation}))::int as unseen
      from contacts where account_id = ${account.id}`,
  );
  const total = Number(counts.total);
  const unseen = Number(counts.unseen);
  if (unseen === 0) return;
  if (!p.explicit && total >= PRUNE_GUARD_MIN_CONTACTS && unseen > total * MAX_PRUNE_SHARE) {
    throw new SyncStopError(pruneRefusedMessage(unseen, total));
  }
  if (unseen > MAX_RECHECK_IDS) return;

  let after = -1;
  for (;;) {
    p.signal.throwIfAborted();
    const ids = (
      await rowsOf<{ kommo_id: string | number }>(
        db,
        sql`select kommo_id from contacts where account_id = ${account.id} and sync_generation <> ${generation}
          and kommo_id > ${after} order by kommo_id limit ${KOMMO_IDS_PER_LOOKUP}`,
      )
    ).map((r) => Number(r.kommo_id));
    if (ids.length === 0) return;
    after = ids[ids.length - 1];
    const wanted = new Set(ids);
    const alive = (await p.client.contactsByIds(p.creds, ids, p.signal)).filter((c) => wanted.has(Number(c.id)));
    if (alive.length > 0) {
      await upsertContacts(db, {
        userId: account.userId,
        accountId: account.id,
        generation,
        contacts: alive.map((c) => mapContact(c, p.mapper)),
      });
    }
  }
}
