import { sql } from 'drizzle-orm';
import { frequencyCapSchema, type FrequencyCap, type FrequencyCapInput } from '@masivo/contract/preflight';
import type { Db } from '../../db/client';
import { preparedRows } from '../../db/sql';
import { parseWith } from '../../lib/parse-with';
import { blacklistedKeysSql } from '../blacklist/is-blacklisted';
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
 * The sender's re-check right before sending, in one statement: which of these phone keys are
 * blacklisted or opted out (blacklist/is-blacklisted.ts), and which already reached the tenant's
 * cap (another campaign may have reached them since the freeze). Only MARKETING campaigns are
 * capped, and none when the cap is off; the cap is read in the statement itself.
 */
export async function sendExclusions(
  db: Db,
  /** `explicit`: a campaign with explicit recipients (no Kommo account): every blacklist of the tenant applies. */
  campaign: { id: number; userId: number; kommoAccountId: number | null; explicit?: boolean },
  keys: string[],
): Promise<{ blacklisted: Set<string>; capped: Set<string> }> {
  const unique = [...new Set(keys.filter(Boolean))];
  if (!unique.length) return { blacklisted: new Set(), capped: new Set() };
  const { id, userId } = campaign;
  const setting = (column: 'max_messages' | 'days') => sql`(select f.${sql.raw(column)} from frequency_caps f where f.user_id = ${userId})`;
  const rows = await preparedRows<{ phone_key: string; capped: boolean }>(
    db,
    sql`select b.phone_key, false as capped from (${blacklistedKeysSql(userId, campaign.explicit ? 'all' : campaign.kommoAccountId, unique)}) b
        union all
        select k.phone_key, true from (${cappedKeysSql(userId, { maxMessages: setting('max_messages'), days: setting('days') }, unique)}) k
        where exists (select 1 from frequency_caps f where f.user_id = ${userId})
          and exists (select 1 from campaigns c join templates t on t.id = c.template_id
            where c.id = ${id} and c.user_id = ${userId} and upper(coalesce(t.category, '')) = 'MARKETING')`,
  );
  const blacklisted = new Set<string>();
  const capped = new Set<string>();
  for (const r of rows) (r.capped ? capped : blacklisted).add(r.phone_key);
  return { blacklisted, capped };
}
