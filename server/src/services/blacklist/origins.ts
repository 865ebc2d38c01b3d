import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { jsonParam, rowsOf } from '../../db/sql';
import { announceOptChanges } from '../webhook-endpoints/outbox';

/**
 * Where a blacklist entry (per Kommo account) or opt-out (per tenant) came from. A reversal
 * removes only entries of its own origin: "ALTA" lifts a keyword opt-out, a user_preferences
 * «resume» lifts a marketing stop; neither lifts what the operator typed or the other kind.
 */
export type OptOutOrigin = 'manual' | 'keyword' | 'button' | 'meta_marketing';

export const MARKETING_STOP_REASON = 'Dejó de recibir marketing (WhatsApp)';

/** One person put on a tenant's list: `key` is the phone key (lib/phone.ts), or the BSUID when no phone is known. */
export interface OptOutEntry {
  userId: number;
  key: string;
  /** As shown: E.164, or the BSUID when no phone is known. */
  phone: string;
  bsuid: string | null;
  whatsappAccountId: number | null;
  /** What the person wrote or did (kept on opt_outs.word). */
  word: string;
  origin: Exclude<OptOutOrigin, 'manual'>;
  reason: string;
}

/**
 * Records opt-outs per tenant (opt_outs) and shows them in the blacklist of every Kommo account
 * of the tenant. An existing entry keeps its origin, except that a person's own request (keyword,
 * button) replaces a marketing stop: "ALTA" must then be what lifts it, not a Meta «resume».
 * Entries the operator typed stay as typed. Learns the BSUID of an entry that lacked it.
 */
export async function addOptOuts(db: Db, entries: OptOutEntry[]): Promise<number> {
  if (!entries.length) return 0;
  const rows = entries.map((e) => ({
    user_id: e.userId,
    key: e.key,
    phone: e.phone,
    bsuid: e.bsuid,
    wa: e.whatsappAccountId,
    word: e.word.slice(0, 40),
    origin: e.origin,
    reason: e.reason,
  }));
  const recordset = sql`jsonb_to_recordset(${jsonParam(rows)}) as v(user_id int, key text, phone text, bsuid text, wa int, word text, origin text, reason text)`;
  const inserted = await rowsOf<{ user_id: number; phone: string; origin: string; is_new: boolean }>(
    db,
    sql`insert into opt_outs as o (user_id, phone_key, phone, whatsapp_account_id, word, origin, bsuid)
        select distinct on (v.user_id, v.key) v.user_id, v.key, v.phone, v.wa, v.word, v.origin, v.bsuid from ${recordset}
        on conflict (user_id, phone_key) do update set
          word = excluded.word,
          bsuid = coalesce(o.bsuid, excluded.bsuid),
          origin = case when o.origin = 'meta_marketing' then excluded.origin else o.origin end
        returning user_id, phone, origin, (xmax = 0) as is_new`,
  );
  // Outbound `contact.opted_out`: only people who were not on the list yet.
  await announceOptChanges(db, 'contact.opted_out', inserted.filter((r) => r.is_new).map((r) => ({ orgId: Number(r.user_id), phone: r.phone, origin: r.origin })));
  await db.execute(sql`insert into blacklist as b (user_id, account_id, phone, phone_key, reason, origin, bsuid)
      select distinct on (ka.id, v.key) ka.user_id, ka.id, v.phone, v.key, v.reason, v.origin, v.bsuid
      from ${recordset} join kommo_accounts ka on ka.user_id = v.user_id
      on conflict (account_id, phone_key) do update set
        bsuid = coalesce(b.bsuid, excluded.bsuid),
        reason = case when b.origin = 'meta_marketing' and excluded.origin <> 'meta_marketing' then excluded.reason else b.reason end,
        origin = case when b.origin = 'meta_marketing' then excluded.origin else b.origin end`);
  return inserted.length;
}

/**
 * Lifts a tenant's entries of ONE origin matching any of `keys` (phone keys or BSUIDs, either
 * column). Returns how many opt-outs went.
 */
export async function removeOptOuts(
  db: Db,
  userIds: number[],
  keys: string[],
  origin: Exclude<OptOutOrigin, 'manual'>,
): Promise<number> {
  const wanted = [...new Set(keys.filter(Boolean))];
  if (!userIds.length || !wanted.length) return 0;
  const users = sql`(select (jsonb_array_elements_text(${jsonParam(userIds)}))::int)`;
  const ks = sql`(select jsonb_array_elements_text(${jsonParam(wanted)}))`;
  const gone = await rowsOf<{ user_id: number; phone: string; origin: string }>(
    db,
    sql`delete from opt_outs where user_id in ${users} and origin = ${origin}
        and (phone_key in ${ks} or bsuid in ${ks}) returning user_id, phone, origin`,
  );
  await announceOptChanges(db, 'contact.opted_in', gone.map((r) => ({ orgId: Number(r.user_id), phone: r.phone, origin: r.origin })));
  await db.execute(sql`delete from blacklist where user_id in ${users} and origin = ${origin}
      and (phone_key in ${ks} or bsuid in ${ks})`);
  return gone.length;
}
