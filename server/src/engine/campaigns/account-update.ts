import type { Db } from '../../db/client';
import { pauseWabaCampaigns } from '../../services/campaigns/campaign-transitions';
import { applyTermsSigned } from '../../services/whatsapp-accounts/marketing-onboarding';
import { liftWabaRestriction, restrictWabaNumbers } from '../../services/whatsapp-accounts/number-restriction';
import type { MetaChange } from './webhook-payload';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : null);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** Restrictions that stop campaigns: those on messages the business starts (templates). */
const BLOCKING_RESTRICTIONS = new Set(['RESTRICTED_BIZ_INITIATED_MESSAGING']);

/**
 * Why an `account_update` must stop every campaign of the WABA, in Spanish; null when it
 * need not (a violation warning, a reinstatement, a pricing-tier or partner event: recorded only).
 * Shapes from Meta's account_update reference: `ban_info.waba_ban_state` (DISABLE,
 * SCHEDULE_FOR_DISABLE, REINSTATE) on DISABLED_UPDATE, `restriction_info[]` on ACCOUNT_RESTRICTION.
 */
export function accountUpdatePauseReason(value: Json, opts: { withEnd?: boolean } = { withEnd: true }): string | null {
  const event = (str(value.event) ?? '').toUpperCase();
  const ban = (str(obj(value.ban_info)?.waba_ban_state) ?? '').toUpperCase();
  if (ban === 'DISABLE') return 'Meta suspendió la cuenta de WhatsApp Business (WABA). Revisa el estado de la cuenta en Meta antes de reanudar.';
  if (ban === 'SCHEDULE_FOR_DISABLE') {
    const date = str(obj(value.ban_info)?.waba_ban_date);
    return `Meta programó la suspensión de la cuenta de WhatsApp Business${date ? ` (${date.slice(0, 40)})` : ''}. Revisa el estado de la cuenta en Meta antes de reanudar.`;
  }
  if (event === 'ACCOUNT_DELETED') return 'Meta eliminó la cuenta de WhatsApp Business (WABA).';
  if (event === 'ACCOUNT_RESTRICTION') {
    const list = Array.isArray(value.restriction_info) ? value.restriction_info : [value.restriction_info ?? value.restrictions];
    for (const r of list) {
      const type = (str(obj(r)?.restriction_type) ?? '').toUpperCase();
      if (!BLOCKING_RESTRICTIONS.has(type)) continue;
      // The end, when Meta gives one, in the console's words (a paused campaign's reason); a
      // number's card shows its end on its own line, so its reason goes without it.
      const end = opts.withEnd ? restrictionEnd(value) : null;
      return `Meta restringió los mensajes iniciados por la empresa en esta cuenta de WhatsApp Business${end ? ` hasta el ${utcDateTime(end)}` : ''}.`;
    }
  }
  return null;
}

/** "19/04/2026 13:59 UTC". */
const utcDateTime = (d: Date) => {
  const iso = d.toISOString();
  return `${iso.slice(8, 10)}/${iso.slice(5, 7)}/${iso.slice(0, 4)} ${iso.slice(11, 16)} UTC`;
};

/**
 * When a restriction of an `account_update` ends: the blocking restriction's `expiration` (Unix
 * seconds, as Meta's timestamps, or an ISO time); null when Meta gives none (until reinstated).
 */
export function restrictionEnd(value: Json): Date | null {
  if ((str(value.event) ?? '').toUpperCase() !== 'ACCOUNT_RESTRICTION') return null;
  const list = Array.isArray(value.restriction_info) ? value.restriction_info : [value.restriction_info ?? value.restrictions];
  for (const r of list) {
    if (!BLOCKING_RESTRICTIONS.has((str(obj(r)?.restriction_type) ?? '').toUpperCase())) continue;
    const raw = obj(r)?.expiration;
    const seconds = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : null;
    const at = seconds !== null ? new Date(seconds * 1000) : typeof raw === 'string' ? new Date(raw) : null;
    return at && Number.isFinite(at.getTime()) ? at : null;
  }
  return null;
}

/**
 * account_update: a ban or a messaging restriction restricts every number of the WABA (a
 * several-number campaign stops those numbers' lanes and goes on with its others; its people on
 * them wait) and pauses the WABA's one-number campaigns; a reinstatement (`waba_ban_state`
 * REINSTATE) lifts the numbers' restriction. MM_LITE_TERMS_SIGNED (`waba_info: {waba_id,
 * owner_business_id}`) opens the Marketing Messages API.
 */
export async function applyAccountUpdate(db: Db, change: MetaChange): Promise<void> {
  if ((str(change.value.event) ?? '').toUpperCase() === 'MM_LITE_TERMS_SIGNED') {
    const waba = obj(change.value.waba_info)?.waba_id;
    await applyTermsSigned(db, typeof waba === 'string' || typeof waba === 'number' ? String(waba) : change.wabaId);
    return;
  }
  if (!change.wabaId) return;
  const reason = accountUpdatePauseReason(change.value);
  if (reason) {
    await restrictWabaNumbers(db, change.wabaId, accountUpdatePauseReason(change.value, { withEnd: false })!, restrictionEnd(change.value));
    await pauseWabaCampaigns(db, change.wabaId, reason);
    return;
  }
  if ((str(obj(change.value.ban_info)?.waba_ban_state) ?? '').toUpperCase() === 'REINSTATE') await liftWabaRestriction(db, change.wabaId);
}
