import { sql } from 'drizzle-orm';
import type { ContactFilter } from '@masivo/contract/contact-filter';
import type { Db } from '../../db/client';
import { rowsOf, withHashJoins } from '../../db/sql';
import { conflict } from '../../lib/errors';
import { classifiedAudienceCtes, frequencyCapOf, REASON_MESSAGE } from './audience-classifier';
import { assignRecipientZones } from './recipient-zones-freeze';
import { frozenDueSql, frozenVariantSql, splitDecideAtSql } from './split-test';
import type { SplitTestConfig } from '../../db/schema/campaigns';
import { senderLanesOf } from './sender-assignment';

export { NO_VALID_PHONE, DUPLICATE_PHONE } from './audience-classifier';

export interface FreezeResult {
  total: number;
  pending: number;
  skipped: number;
}

/**
 * Turns the campaign's filter (a follow-up's contact list, an explicit campaign's staged
 * recipients) into recipient rows in ONE set-based statement (no rows travel
 * through Node): one row per matching contact, classified by audience-classifier.ts (the
 * pre-flight counts the very same rows); every excluded row is recorded as skipped with its
 * reason. The campaign's counters are set in the same statement: `total_recipients` = every
 * matched contact, `pending_count` = the attempted. Run inside the start transaction.
 */
export async function freezeAudience(
  db: Db,
  campaign: { id: number; userId: number; kommoAccountId: number | null; filters: ContactFilter },
): Promise<FreezeResult> {
  const [template] = await rowsOf<{ category: string | null; audience_kind: string; split_test: SplitTestConfig | string | null }>(
    db,
    sql`select t.category, c.audience_kind, c.split_test from campaigns c join templates t on t.id = c.template_id where c.id = ${campaign.id}`,
  );
  // A split test ("Prueba A/B"): each recipient of the test slice gets its arm as it is frozen.
  const split = typeof template?.split_test === 'string' ? (JSON.parse(template.split_test) as SplitTestConfig) : (template?.split_test ?? null);
  const marketing = (template?.category ?? '').toUpperCase() === 'MARKETING';
  const explicit = template?.audience_kind === 'explicit';
  if (!explicit && campaign.kommoAccountId == null) throw conflict('La campaña no tiene una cuenta Kommo');
  const cap = marketing ? await frequencyCapOf(db, campaign.userId) : null;
  const classified = classifiedAudienceCtes({
    userId: campaign.userId,
    kommoAccountId: campaign.kommoAccountId,
    filters: campaign.filters,
    marketing,
    cap,
    templateUnfit: false,
    // A follow-up freezes exactly its frozen contact list (0024), through the same classifier.
    contactListOf: template?.audience_kind === 'contact_list' ? campaign.id : null,
    // An explicit campaign its staged recipients (0039), in the order they were added.
    explicitOf: explicit ? campaign.id : null,
  });
  const message = sql.join(
    Object.entries(REASON_MESSAGE).map(([reason, text]) => sql`when ${reason}::text then ${text}::text`),
    sql` `,
  );
  // The embedded database never analyzes by itself, and a follow-up's list was just written:
  // without statistics the planner joins the audience to its verdicts in a nested loop, one
  // pass per contact (minutes at 20,000). A hash join is what fits; the setting is local to the
  // start's transaction and restored right after (with JIT, see withHashJoins).
  // A million recipients sort and hash in memory rather than in temporary files.
  await db.execute(sql`set local work_mem = '128MB'`);
  // Several numbers: each person's number, chosen in this same insert.
  const lanes = await senderLanesOf(db, campaign.id, campaign.userId);
  const [row] = await withHashJoins(db, () =>
    rowsOf<{ total: number; pending: number; skipped: number }>(
      db,
      sql`with ${classified}${lanes?.ctes ?? sql``},
      ins as (
        insert into campaign_recipients (campaign_id, user_id, contact_id, phone, phone_key, status, error_message, bsuid, params, variant, next_attempt_at, whatsapp_account_id)
        select ${campaign.id}, ${campaign.userId}::int, ${explicit ? sql`null::bigint` : sql`contact_id`}, phone,
          case when reason is null or reason not in ('invalid_phone', 'duplicate') then phone_key end,
          case when reason is null then 'pending' else 'skipped' end,
          case reason ${message} end,
          known_bsuid, params, ${frozenVariantSql(split, campaign.id)}, ${frozenDueSql(split, campaign.id)}, ${lanes ? sql`lane` : sql`null::int`}
        -- Recipient ids follow the contacts' order (the sender claims by id), whatever the join did;
        -- an explicit campaign's, the order its recipients were added in (contact_id is the position).
        from ${lanes?.source ?? sql`classified`} order by contact_id
        returning status
      ),
      totals as (
        select count(*)::int as total,
          (count(*) filter (where status = 'pending'))::int as pending,
          (count(*) filter (where status = 'skipped'))::int as skipped
        from ins
      ),
      counted as (
        update campaigns set total_recipients = t.total, pending_count = t.pending, skipped_count = t.skipped,
          audience_frozen_at = now(), updated_at = now(), split_decide_at = ${splitDecideAtSql}
        from totals t where campaigns.id = ${campaign.id}
        returning campaigns.id
      )
      select t.total, t.pending, t.skipped from totals t`,
    ),
  );
  await assignRecipientZones(db, campaign.id);
  return { total: Number(row?.total ?? 0), pending: Number(row?.pending ?? 0), skipped: Number(row?.skipped ?? 0) };
}
