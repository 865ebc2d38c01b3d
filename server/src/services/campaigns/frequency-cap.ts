import { sql } from 'drizzle-orm';
import { frequencyCapSchema, type FrequencyCap, type FrequencyCapInput } from '@masivo/contract/preflight';
import type { Db } from '../../db/client';
import { rowsOf } from '../../db/sql';
import { parseWith } from '../../lib/parse-with';
import { cappedKeysSql, frequencyCapOf } from './audience-classifier';

/** The tenant's frequency cap as the settings card shows it (null = off, the default). */
export async function getFrequencyCap(db: Db, userId: number): Promise<FrequencyCap> {
  const cap = await frequencyCapOf(db, userId);
  return { cap: cap ? { max_messages: cap.maxMessages, days: cap.days } : null };
}

/** Sets (or with null turns off) the tenant's cap. Frozen audiences keep their rows; the sender re-checks at each send. */
export async function setFrequencyCap(db: Db, userId: number, input: FrequencyCapInput): Promise<FrequencyCap> {
  const { cap } = parseWith(frequencyCapSchema, input);
  if (!cap) await db.execute(sql`delete from frequency_caps where user_id = ${userId}`);
  else {
    await db.execute(sql`insert into frequency_caps (user_id, max_messages, days) values (${userId}, ${cap.max_messages}, ${cap.days})
      on conflict (user_id) do update set max_messages = excluded.max_messages, days = excluded.days, updated_at = now()`);
  }
  return getFrequencyCap(db, userId);
}

/**
 * The sender's re-check right before sending: which of these phone keys already reached the
 * tenant's cap (another campaign may have reached them since the freeze). Only MARKETING
 * campaigns are capped; an empty set when the cap is off.
 */
export async function frequencyCappedKeys(db: Db, userId: number, campaignId: number, keys: string[]): Promise<Set<string>> {
  const unique = [...new Set(keys.filter(Boolean))];
  if (!unique.length) return new Set();
  const cap = await frequencyCapOf(db, userId);
  if (!cap) return new Set();
  const found = await rowsOf<{ phone_key: string }>(
    db,
    sql`select k.phone_key from (${cappedKeysSql(userId, cap, unique)}) k
        where exists (select 1 from campaigns c join templates t on t.id = c.template_id
          where c.id = ${campaignId} and c.user_id = ${userId} and upper(coalesce(t.category, '')) = 'MARKETING')`,
  );
  return new Set(found.map((r) => r.phone_key));
}
