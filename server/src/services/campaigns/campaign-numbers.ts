import { sql, type SQL } from 'drizzle-orm';
import type { CampaignNumberProgress } from '@masivo/contract/campaigns';
import type { Db } from '../../db/client';
import { rowsOf, type Queryable } from '../../db/sql';
import { variantLabel } from '@masivo/contract/split-test';
import { AppError, badRequest, conflict, notFound } from '../../lib/errors';
import { portfolioKeyOf } from '../whatsapp-accounts/messaging-limit';
import { restrictedNowSql } from '../whatsapp-accounts/number-restriction';

/**
 * Several numbers in one campaign. A campaign may send from several numbers of one
 * business portfolio, each holding an approved copy of the template (same name and language);
 * they are kept in `campaign_numbers` (0049). No row: the campaign's one number, as always.
 * Each recipient is given its number when the audience is frozen (sender-assignment.ts) and
 * each number's sender claims only its own people (engine/campaigns/claim.ts).
 */

/**
 * Why number `a` takes no sends for campaign `c` now, or null (SQL on aliases `a` and `c`): switched
 * off, restricted by Meta (number-restriction.ts), RED, or without the template approved.
 */
export const laneBlockedSql = (a: string, c: string): SQL =>
  sql.raw(`case
    when not ${a}.is_active then 'Número desactivado'
    when ${restrictedNowSql(a)} then 'Restringido por Meta: ' || rtrim(coalesce(${a}.restricted_reason, 'sin motivo informado'), '.')
      || coalesce(' (se vuelve a intentar el ' || to_char(${a}.restricted_until at time zone 'UTC', 'DD/MM/YYYY HH24:MI') || ' UTC)', '')
    when upper(coalesce(${a}.quality_rating, '')) = 'RED' then 'Calidad baja (RED)'
    when not exists (select 1 from templates tc where tc.whatsapp_account_id = ${a}.id and tc.user_id = ${c}.user_id
      and tc.name = ${c}.template_name and tc.language = ${c}.template_language and tc.status = 'approved')
      then 'La plantilla no está aprobada en este número'
  end`);

/**
 * The numbers a new (or edited) campaign sends from, the template's number first: `ids` as
 * given (the template's number added when missing), each the tenant's, of the template's
 * number's portfolio, with an approved copy of the template. One number: `[primaryId]`.
 */
export async function resolveCampaignNumbers(
  db: Queryable,
  userId: number,
  primaryId: number,
  ids: number[] | undefined,
  template: { name: string; language: string },
): Promise<number[]> {
  const wanted = [primaryId, ...(ids ?? []).filter((id) => id !== primaryId)];
  if (wanted.length === 1) return wanted;
  const rows = await rowsOf<{ id: number; name: string; same_portfolio: boolean; approved: boolean }>(
    db,
    sql`select a.id, a.name, ${portfolioKeyOf('a')} = ${portfolioKeyOf('p')} as same_portfolio,
          exists (select 1 from templates t where t.whatsapp_account_id = a.id and t.user_id = a.user_id
            and t.name = ${template.name} and t.language = ${template.language} and t.status = 'approved') as approved
        from whatsapp_accounts a join whatsapp_accounts p on p.id = ${primaryId} and p.user_id = a.user_id
        where a.user_id = ${userId} and a.id in (select (jsonb_array_elements_text(${JSON.stringify(wanted)}::jsonb))::int)`,
  );
  const byId = new Map(rows.map((r) => [Number(r.id), r]));
  for (const id of wanted) {
    const r = byId.get(id);
    if (!r) throw notFound('Cuenta de WhatsApp no encontrada');
    if (!r.same_portfolio) throw badRequest(`El número «${r.name}» es de otro portafolio comercial: todos los números de una campaña deben ser del mismo`);
    if (!r.approved) throw badRequest(`El número «${r.name}» no tiene aprobada la plantilla «${template.name}» (${template.language})`);
  }
  return wanted;
}

/**
 * A split test on several numbers: each variant's template must also have an approved copy on
 * every number, since each person hears from their one number in their arm's template. Checked
 * after `resolveCampaignNumbers` (which checked the campaign's own template and the portfolio);
 * a missing copy is a 400 naming the variant, the number and the template.
 */
export async function assertVariantsOnNumbers(
  db: Queryable,
  userId: number,
  numbers: number[],
  variants: ReadonlyArray<{ template_name: string; template_language: string } | null> | null | undefined,
): Promise<void> {
  if (!variants || numbers.length < 2) return;
  for (let i = 1; i < variants.length; i++) {
    const v = variants[i];
    if (!v) continue;
    try {
      await resolveCampaignNumbers(db, userId, numbers[0]!, numbers, { name: v.template_name, language: v.template_language });
    } catch (err) {
      if (err instanceof AppError && err.statusCode === 400) throw badRequest(`Variante ${variantLabel(i)}: ${err.message}`);
      throw err;
    }
  }
}

/** Records the campaign's numbers: rows only when it sends from more than one. */
export async function saveCampaignNumbers(db: Queryable, userId: number, campaignId: number, ids: number[]): Promise<void> {
  await db.execute(sql`delete from campaign_numbers where campaign_id = ${campaignId}`);
  if (ids.length < 2) return;
  await db.execute(
    sql`insert into campaign_numbers (campaign_id, whatsapp_account_id, user_id)
        select ${campaignId}, (jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))::int, ${userId}`,
  );
}

/** The numbers of each of these campaigns that send from several (absent: its one number). */
export async function numbersOfCampaigns(db: Queryable, userId: number, campaignIds: number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>();
  if (!campaignIds.length) return out;
  const rows = await rowsOf<{ campaign_id: number; ids: number[] }>(
    db,
    sql`select n.campaign_id, array_agg(n.whatsapp_account_id order by (n.whatsapp_account_id = c.whatsapp_account_id) desc, n.whatsapp_account_id) as ids
        from campaign_numbers n join campaigns c on c.id = n.campaign_id
        where n.user_id = ${userId} and n.campaign_id in (select (jsonb_array_elements_text(${JSON.stringify(campaignIds)}::jsonb))::int)
        group by n.campaign_id`,
  );
  for (const r of rows) out.set(Number(r.campaign_id), r.ids.map(Number));
  return out;
}

/**
 * Each number's progress on the campaign's screen: its people by state, and those waiting
 * while the number takes no sends (with the reason). One grouped read of the recipients.
 */
export async function numberProgress(db: Db, userId: number, campaignId: number): Promise<CampaignNumberProgress[]> {
  const rows = await rowsOf<{
    id: number;
    name: string;
    phone: string | null;
    rate: number;
    blocked: string | null;
    assigned: number;
    pending: number;
    sent: number;
    failed: number;
  }>(
    db,
    sql`with counts as (
          select r.whatsapp_account_id as id, count(*)::int as assigned,
            (count(*) filter (where r.status in ('pending', 'sending')))::int as pending,
            (count(*) filter (where r.status in ('sent', 'delivered', 'read')))::int as sent,
            (count(*) filter (where r.status = 'failed'))::int as failed
          from campaign_recipients r where r.campaign_id = ${campaignId} and r.whatsapp_account_id is not null
          group by r.whatsapp_account_id
        )
        select a.id, a.name, coalesce(a.display_phone_number, a.phone_number) as phone, a.rate_per_second as rate,
          ${laneBlockedSql('a', 'c')} as blocked,
          coalesce(k.assigned, 0) as assigned, coalesce(k.pending, 0) as pending, coalesce(k.sent, 0) as sent, coalesce(k.failed, 0) as failed
        from campaign_numbers n
        join campaigns c on c.id = n.campaign_id
        join whatsapp_accounts a on a.id = n.whatsapp_account_id
        left join counts k on k.id = n.whatsapp_account_id
        where n.campaign_id = ${campaignId} and n.user_id = ${userId}
        order by (a.id = c.whatsapp_account_id) desc, a.id`,
  );
  return rows.map((r) => ({
    whatsapp_account_id: Number(r.id),
    name: r.name,
    phone: r.phone,
    rate_per_second: Number(r.rate),
    assigned: Number(r.assigned),
    pending: Number(r.pending),
    sent: Number(r.sent),
    failed: Number(r.failed),
    waiting: r.blocked ? Number(r.pending) : 0,
    blocked_reason: r.blocked,
  }));
}

/** The numbers' rates added up (messages per second): what a several-number campaign can reach. */
export async function numbersRate(db: Queryable, userId: number, ids: number[]): Promise<number> {
  const [row] = await rowsOf<{ rate: number | null }>(
    db,
    sql`select sum(rate_per_second)::int as rate from whatsapp_accounts
        where user_id = ${userId} and id in (select (jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))::int)`,
  );
  return Number(row?.rate ?? 0);
}

export const NUMBERS_FIXED = 'Los números de la campaña no se pueden cambiar después del primer envío: cada persona ya tiene su número';

/**
 * An edit's numbers: `ids` when given, else the campaign's own when its number or template
 * changed (checked again against the template's number). Once the audience is frozen every
 * person has a number, so the set may not change.
 */
export async function updateCampaignNumbers(
  db: Queryable,
  userId: number,
  row: {
    id: number;
    whatsappAccountId: number | null;
    templateName: string | null;
    templateLanguage: string | null;
    audienceFrozenAt: Date | null;
    splitTest?: { variants: Array<{ template_name: string; template_language: string }> } | null;
  },
  changes: { whatsappAccountId?: number | null; templateName?: string | null; templateLanguage?: string | null },
  ids: number[] | undefined,
  numberOrTemplateChanged: boolean,
): Promise<void> {
  if (ids === undefined && !numberOrTemplateChanged) return;
  const current = (await numbersOfCampaigns(db, userId, [row.id])).get(row.id);
  if (ids === undefined && !current) return;
  const primary = changes.whatsappAccountId ?? row.whatsappAccountId;
  const name = changes.templateName ?? row.templateName;
  const language = changes.templateLanguage ?? row.templateLanguage;
  if (!primary || !name || !language) return;
  const wanted = ids ?? current!;
  if (row.audienceFrozenAt) {
    const before = new Set(current ?? [row.whatsappAccountId]);
    const after = new Set([primary, ...wanted]);
    if (before.size !== after.size || [...after].some((id) => !before.has(id))) throw conflict(NUMBERS_FIXED);
  }
  const numbers = await resolveCampaignNumbers(db, userId, primary, wanted, { name, language });
  await assertVariantsOnNumbers(db, userId, numbers, row.splitTest?.variants);
  await saveCampaignNumbers(db, userId, row.id, numbers);
}
