import { sql } from 'drizzle-orm';
import { numbersOfCampaigns, resolveCampaignNumbers, saveCampaignNumbers } from './campaign-numbers';
import {
  createFollowUpSchema,
  followUpCountQuerySchema,
  FOLLOW_UP_DEFAULT_HOURS,
  type Campaign,
  type CreateFollowUpInput,
  type FollowUpCount,
  type FollowUpCountQuery,
  type RecipientGroup,
  type RecipientGroupQuery,
} from '@masivo/contract/campaigns';
import { contactFilterSchema, EMPTY_FILTER } from '@masivo/contract/contact-filter';
import type { AppContext } from '../../context';
import type { Db } from '../../db/client';
import { campaigns } from '../../db/schema/index';
import { rowsOf, type Queryable } from '../../db/sql';
import { badRequest, conflict } from '../../lib/errors';
import { parseWith } from '../../lib/parse-with';
import { assertTemplateUsable } from '../variables/template-readiness';
import { getFrequencyCap } from './frequency-cap';
import { campaignDetail, loadCampaignRow } from './campaign-queries';
import type { CampaignRow } from './campaign-view';
import { listExclusionSql } from './audience-classifier';
import { groupLabel } from './follow-up-view';
import { recipientGroupWhere } from './recipient-groups';

export const NOT_SENT_YET = 'La campaña aún no se ha iniciado: todavía no hay destinatarios a quienes dirigir otra campaña';
export const SOURCE_INCOMPLETE = 'La campaña de origen ya no tiene cuenta Kommo o cuenta de WhatsApp: no se puede crear otra campaña desde ella';
export const EMPTY_GROUP = 'Ningún destinatario de la campaña está en este grupo: no se creó ninguna campaña';

/** The group as stored on the follow-up and used in SQL: `unread` always carries its hours. */
function normalizedGroup(q: { group: RecipientGroup; hours?: number; button?: string }): RecipientGroupQuery & { group: RecipientGroup } {
  if (q.group === 'unread') return { group: q.group, hours: q.hours ?? FOLLOW_UP_DEFAULT_HOURS };
  if (q.group === 'tapped') return { group: q.group, button: q.button };
  return { group: q.group };
}

/** The source's excluded tags ("Sin las etiquetas"): they carry over to the follow-up. */
function excludedTagsOf(source: CampaignRow): string[] {
  const parsed = contactFilterSchema.safeParse(source.filters ?? {});
  return parsed.success ? parsed.data.excludedTags : [];
}

/**
 * The source campaign's recipients in the group who are a contact: one row per contact (its
 * first recipient row), less those who hold one of the source's excluded tags now (tagged since
 * the source was sent).
 */
function groupContactsSql(source: CampaignRow, userId: number, q: RecipientGroupQuery, now: Date) {
  const where = recipientGroupWhere(q, now);
  const excluded = source.kommoAccountId
    ? listExclusionSql(
        { userId, kommoAccountId: source.kommoAccountId, filters: { ...EMPTY_FILTER, excludedTags: excludedTagsOf(source) } },
        sql`r.contact_id`,
      )
    : sql``;
  return sql`select distinct on (r.contact_id) r.contact_id, r.phone, r.phone_key, r.bsuid
      from campaign_recipients r
      where r.campaign_id = ${source.id} and r.user_id = ${userId}::int and r.contact_id is not null
        ${where ? sql`and ${where}` : sql``} ${excluded}
      order by r.contact_id, r.id`;
}

function assertSent(source: CampaignRow): void {
  if (!source.audienceFrozenAt) throw conflict(NOT_SENT_YET);
}

/** GET /api/campaigns/{id}/follow-up/count: how many contacts "Nueva campaña para…" would take. */
export async function countFollowUp(db: Db, userId: number, sourceId: number, query: FollowUpCountQuery, now = new Date()): Promise<FollowUpCount> {
  const q = normalizedGroup(parseWith(followUpCountQuerySchema, query));
  const source = await loadCampaignRow(db, userId, sourceId);
  assertSent(source);
  const [row] = await rowsOf<{ n: number | string; recent: number | string }>(
    db,
    sql`select count(*)::int as n,
          count(*) filter (where exists (select 1 from campaign_recipients x
            where x.user_id = ${userId}::int and x.phone_key = g.phone_key
              and x.sent_at > ${now.toISOString()}::timestamptz - interval '24 hours'))::int as recent
        from (${groupContactsSql(source, userId, q, now)}) g`,
  );
  const count = Number(row?.n ?? 0);
  const cap = await getFrequencyCap(db, userId);
  return {
    group: q.group,
    label: groupLabel(q),
    count,
    available_from: count === 0 ? await unreadFillsAt(db, userId, source.id, q) : null,
    messaged_last_24h: Number(row?.recent ?? 0),
    frequency_cap: cap.cap,
  };
}

/**
 * When an empty "No leyeron tras N h" group gets its first contact: the earliest send that is
 * still unread (sent or delivered, so not yet in the group) plus N hours. Null for the other
 * groups, which no clock fills, and when every send was read.
 */
async function unreadFillsAt(db: Db, userId: number, sourceId: number, q: RecipientGroupQuery): Promise<string | null> {
  if (q.group !== 'unread') return null;
  const hours = q.hours ?? FOLLOW_UP_DEFAULT_HOURS;
  const [row] = await rowsOf<{ at: Date | string | null }>(
    db,
    sql`select min(r.sent_at) + make_interval(hours => ${hours}::int) as at from campaign_recipients r
        where r.campaign_id = ${sourceId}::int and r.user_id = ${userId}::int and r.contact_id is not null
          and r.status in ('sent', 'delivered') and r.sent_at is not null`,
  );
  return row?.at ? new Date(row.at).toISOString() : null;
}

/**
 * POST /api/campaigns/{id}/follow-up: a draft campaign over exactly the contacts of the group,
 * as a frozen contact list (campaign_audience_contacts) with the phone each was reached at. The
 * source's Kommo account (whose blacklist applies), WhatsApp account, sending hours and marketing
 * retries carry over; the template is the source's unless another is given. Its pre-flight and
 * freeze classify the list like any matched set (audience-classifier.ts `contactListOf`), so
 * the blacklisted, the opted out since, duplicates and the frequency cap are still excluded.
 * One transaction: an empty group or any failure leaves nothing written.
 */
export async function createFollowUp(ctx: AppContext, userId: number, sourceId: number, input: CreateFollowUpInput, now = new Date()): Promise<Campaign> {
  const data = parseWith(createFollowUpSchema, input);
  const q = normalizedGroup(data);
  const { db } = ctx;
  const source = await loadCampaignRow(db, userId, sourceId);
  assertSent(source);
  if (!source.kommoAccountId || !source.whatsappAccountId) throw conflict(SOURCE_INCOMPLETE);
  const templateId = data.template_id ?? source.templateId;
  if (!templateId) throw badRequest('La plantilla es requerida');
  const { template } = await assertTemplateUsable(db, userId, templateId, source.whatsappAccountId);
  // The source's numbers carry over: each person stays on the number it was sent from.
  const sourceNumbers = (await numbersOfCampaigns(db, userId, [source.id])).get(source.id);
  const numbers = await resolveCampaignNumbers(db, userId, source.whatsappAccountId, sourceNumbers, template);
  const label = groupLabel(q);
  const name = (data.name || `${source.name} · ${label}`).slice(0, 200);

  const created = await db.transaction(async (tx) => {
    const [row] = await tx
      .insert(campaigns)
      .values({
        userId,
        name,
        description: '',
        status: 'draft',
        messageType: 'template',
        kommoAccountId: source.kommoAccountId,
        whatsappAccountId: source.whatsappAccountId,
        templateId: template.id,
        templateName: template.name,
        templateLanguage: template.language,
        filters: { ...EMPTY_FILTER, excludedTags: excludedTagsOf(source) },
        totalRecipients: 0,
        pendingCount: 0,
        deferredMaxAttempts: source.deferredMaxAttempts,
        deferredWindowHours: source.deferredWindowHours,
        sendingHours: source.sendingHours,
        audienceKind: 'contact_list',
        sourceCampaignId: source.id,
        sourceCampaignName: source.name,
        sourceGroup: q,
      })
      .returning();
    await saveCampaignNumbers(tx, userId, row!.id, numbers);
    const n = await freezeContactList(tx, row!.id, userId, groupContactsSql(source, userId, q, now));
    // Rolled back with the campaign: nothing is created for an empty group.
    if (n === 0) throw badRequest(EMPTY_GROUP);
    return { ...row!, totalRecipients: n };
  });
  ctx.signals.campaignChanged(created.id);
  return campaignDetail(db, userId, created);
}

/**
 * Writes the list and sets `total_recipients` (the pre-flight's `matched`: every listed contact)
 * in one statement; returns the list's size.
 */
async function freezeContactList(tx: Queryable, campaignId: number, userId: number, contacts: ReturnType<typeof groupContactsSql>): Promise<number> {
  const [row] = await rowsOf<{ n: number | string }>(
    tx,
    sql`with ins as (
        insert into campaign_audience_contacts (campaign_id, user_id, contact_id, phone, phone_key, bsuid)
        select ${campaignId}::int, ${userId}::int, g.contact_id, g.phone, g.phone_key, g.bsuid from (${contacts}) g
        returning 1
      ),
      counted as (
        update campaigns set total_recipients = (select count(*) from ins) where id = ${campaignId}::int returning id
      )
      select (select count(*) from ins)::int as n, (select count(*) from counted)::int as c`,
  );
  return Number(row?.n ?? 0);
}
