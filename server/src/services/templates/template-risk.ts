import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { rowsOf } from '../../db/sql';
import type { TemplateCategoryChange } from '../../db/schema/whatsapp';
import { pauseForTemplates, resumeAfterTemplate } from '../campaigns/campaign-transitions';

/**
 * Template risk: Meta pauses a template whose quality falls to RED (3 h, then
 * 6 h), then disables it; it can also change a template's category. Campaigns follow:
 * - a template that becomes paused or disabled pauses every campaign sending with it, at
 *   once and with the reason ('template' origin);
 * - UNPAUSED or REINSTATED brings back the campaigns paused for it, never those the operator
 *   paused;
 * - a send refused with 132015 (paused) or 132016 (disabled) does the same as the webhook.
 */

/** Meta's `other_info.title` of a PAUSED event, in Spanish. */
export const PAUSE_DETAIL_LABELS: Record<string, string> = {
  FIRST_PAUSE: '1.ª pausa: 3 horas',
  SECOND_PAUSE: '2.ª pausa: 6 horas',
};

const RESUMES = 'La campaña se reanudará sola cuando Meta reactive la plantilla.';

/** The pause reason the operator reads on the campaign. */
export function templatePauseReason(status: 'paused' | 'disabled', detail: string | null, code?: number | null): string {
  const suffix = code ? ` (código ${code})` : '';
  if (status === 'disabled') {
    return `Meta deshabilitó la plantilla por su baja calidad${suffix}. Elige otra plantilla o espera a que Meta la restablezca.`;
  }
  const which = detail && PAUSE_DETAIL_LABELS[detail] ? ` (${PAUSE_DETAIL_LABELS[detail]})` : '';
  return `Meta pausó la plantilla por su baja calidad${which}${suffix}. ${RESUMES}`;
}

export interface CampaignEffects {
  paused: number[];
  resumed: number[];
}

/** Campaign effects of a template status Meta reported (webhook or a send's error). */
export async function followTemplateStatus(
  db: Db,
  templateIds: number[],
  status: string,
  detail: string | null,
  code?: number | null,
): Promise<CampaignEffects> {
  if (!templateIds.length) return { paused: [], resumed: [] };
  if (status === 'paused' || status === 'disabled') {
    return { paused: await pauseForTemplates(db, templateIds, templatePauseReason(status, detail, code)), resumed: [] };
  }
  if (status === 'approved') return { paused: [], resumed: await resumeAfterTemplate(db, templateIds) };
  return { paused: [], resumed: [] };
}

/**
 * A send was refused because Meta paused (132015) or disabled (132016) the template: the
 * local copy says so at once (Meta's webhook confirms it later) and its campaigns pause.
 */
export async function templateRefusedBySend(db: Db, templateId: number, code: number): Promise<CampaignEffects> {
  const status = code === 132016 ? 'disabled' : 'paused';
  return db.transaction(async (tx) => {
    await tx.execute(sql`update templates set status = ${status}, updated_at = now()
      where id = ${templateId} and status = 'approved'`);
    return followTemplateStatus(tx, [templateId], status, null, code);
  });
}

/** `template_category_update`: impending (a warning) or completed (the category changes). */
export interface CategoryUpdate {
  message_template_id?: number | string;
  message_template_name?: string;
  message_template_language?: string;
  correct_category?: string;
  new_category?: string;
  previous_category?: string;
  category_update_timestamp?: number | string;
}

/** `message_template_quality_update`. */
export interface QualityUpdate {
  message_template_id?: number | string;
  message_template_name?: string;
  message_template_language?: string;
  new_quality_score?: string;
}

const upper = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim().toUpperCase() : null);

/** Reads a category update: null when it names no category (an odd payload changes nothing). */
export function readCategoryChange(value: CategoryUpdate): TemplateCategoryChange | null {
  const correct = upper(value.correct_category);
  const next = upper(value.new_category);
  const previous = upper(value.previous_category);
  if (correct) {
    // Impending: `new_category` is the CURRENT category, `correct_category` the one to come.
    const seconds = Number(value.category_update_timestamp);
    const at = Number.isFinite(seconds) && seconds > 0 ? new Date(seconds * 1000).toISOString() : null;
    return { kind: 'impending', from: next, to: correct, at };
  }
  if (next) return { kind: 'completed', from: previous, to: next, at: null };
  return null;
}

/** The local copies of a template named in a webhook, among the WABA's verified accounts. */
export async function templatesOfWebhook(
  db: Db,
  wabaId: string,
  value: { message_template_id?: number | string; message_template_name?: string; message_template_language?: string },
): Promise<number[]> {
  const metaId = value.message_template_id === undefined || value.message_template_id === null ? null : String(value.message_template_id);
  const name = typeof value.message_template_name === 'string' ? value.message_template_name : null;
  const language = typeof value.message_template_language === 'string' ? value.message_template_language : null;
  if (!metaId && !(name && language)) return [];
  const rows = await rowsOf<{ id: number }>(
    db,
    sql`select t.id from templates t
        join whatsapp_accounts wa on wa.id = t.whatsapp_account_id
        where wa.business_account_id = ${wabaId} and wa.owner_verified_at is not null
          and (t.meta_id = ${metaId} or (t.meta_id is null and t.name = ${name} and t.language = ${language}))`,
  );
  return rows.map((r) => Number(r.id));
}

export async function applyCategoryUpdate(db: Db, wabaId: string, value: CategoryUpdate): Promise<void> {
  const change = readCategoryChange(value);
  if (!change) return;
  const ids = await templatesOfWebhook(db, wabaId, value);
  if (!ids.length) return;
  const list = JSON.stringify(ids);
  await db.execute(sql`update templates set
      category_change = ${JSON.stringify(change)}::jsonb,
      category = case when ${change.kind} = 'completed' then ${change.to.toLowerCase()} else category end,
      updated_at = now()
    where id in (select (jsonb_array_elements_text(${list}::jsonb))::int)`);
}

const QUALITY = new Set(['GREEN', 'YELLOW', 'RED', 'UNKNOWN']);

export async function applyQualityUpdate(db: Db, wabaId: string, value: QualityUpdate): Promise<void> {
  const score = upper(value.new_quality_score);
  if (!score || !QUALITY.has(score)) return;
  const ids = await templatesOfWebhook(db, wabaId, value);
  if (!ids.length) return;
  await db.execute(sql`update templates set quality_score = ${score}, updated_at = now()
    where id in (select (jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))::int)`);
}
