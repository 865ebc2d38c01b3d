import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { jsonParam } from '../../db/sql';
import { toBsuid } from '../../lib/bsuid';

/**
 * Where a contact's BSUID comes from: Meta's webhooks that carry BOTH the phone and the
 * business-scoped user id (a status with `recipient_id` and `recipient_user_id`, an inbound
 * message with `from` and `from_user_id`, a user_preferences change with `wa_id` and `user_id`).
 * Learned per tenant and phone key in contact_bsuids, apart from contacts, so a Kommo sync never
 * overwrites it. Used to honour an opt-out a person later makes under a username (BSUID only),
 * and to reach them when the phone disappears. A contact whose Kommo phone field holds a BSUID
 * is sent to by that BSUID (freeze-audience.ts).
 */
export interface LearnedBsuid {
  userId: number;
  phoneKey: string;
  bsuid: string;
}

export async function learnBsuids(db: Db, learned: LearnedBsuid[]): Promise<void> {
  const rows = learned
    .map((l) => ({ user_id: l.userId, phone_key: l.phoneKey, bsuid: toBsuid(l.bsuid) }))
    .filter((l) => l.bsuid && /^\d{6,20}$/.test(l.phone_key));
  if (!rows.length) return;
  await db.execute(sql`insert into contact_bsuids as cb (user_id, phone_key, bsuid)
      select distinct on (v.user_id, v.phone_key) v.user_id, v.phone_key, v.bsuid
      from jsonb_to_recordset(${jsonParam(rows)}) as v(user_id int, phone_key text, bsuid text)
      on conflict (user_id, phone_key) do update set bsuid = excluded.bsuid, learned_at = now()
      where cb.bsuid is distinct from excluded.bsuid`);
}
