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

/** Why an `account_update` stops the WABA's sends, and until when. */
export interface AccountStop {
  /** A paused campaign's reason, with the end when Meta gives one. */
  reason: string;
  /** A number's reason: its card shows the end on its own line. */
  numberReason: string;
  /** When the restriction ends; null when Meta gives no end (until reinstated). */
  end: Date | null;
}

/**
 * Why an `account_update` must stop every campaign of the WABA, in Spanish; null when it
 * need not (a violation warning, a reinstatement, a pricing-tier or partner event: recorded only).
 * Shapes from Meta's account_update reference: `ban_info.waba_ban_state` (DISABLE,
 * SCHEDULE_FOR_DISABLE, REINSTATE) on DISABLED_UPDATE, `restriction_info[]` on ACCOUNT_RESTRICTION
 * (its `expiration` in Unix seconds, as Meta's timestamps, or an ISO time).
 */
export function accountUpdateStop(value: Json): AccountStop | null {
  const event = (str(value.event) ?? '').toUpperCase();
  const ban = (str(obj(value.ban_info)?.waba_ban_state) ?? '').toUpperCase();
  const forever = (reason: string): AccountStop => ({ reason, numberReason: reason, end: null });
  if (ban === 'DISABLE') return forever('Meta suspendió la cuenta de WhatsApp Business (WABA). Revisa el estado de la cuenta en Meta antes de reanudar.');
  if (ban === 'SCHEDULE_FOR_DISABLE') {
    const date = str(obj(value.ban_info)?.waba_ban_date);
    return forever(`Meta programó la suspensión de la cuenta de WhatsApp Business${date ? ` (${date.slice(0, 40)})` : ''}. Revisa el estado de la cuenta en Meta antes de reanudar.`);
  }
  if (event === 'ACCOUNT_DELETED') return forever('Meta eliminó la cuenta de WhatsApp Business (WABA).');
  if (event !== 'ACCOUNT_RESTRICTION') return null;
  const list = Array.isArray(value.restriction_info) ? value.restriction_info : [value.restriction_info ?? value.restrictions];
  const blocking = list.map(obj).find((r) => BLOCKING_RESTRICTIONS.has((str(r?.restriction_type) ?? '').toUpperCase()));
  if (!blocking) return null;
  const end = expirationOf(blocking.expiration);
  const what = 'Meta restringió los mensajes iniciados por la empresa en esta cuenta de WhatsApp Business';
  return { reason: `${what}${end ? ` hasta el ${utcDateTime(end)}` : ''}.`, numberReason: `${what}.`, end };
}

function expirationOf(raw: unknown): Date | null {
  const seconds = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : null;
  const at = seconds !== null ? new Date(seconds * 1000) : typeof raw === 'string' ? new Date(raw) : null;
  return at && Number.isFinite(at.getTime()) ? at : null;
}

/** "19/04/2026 13:59 UTC". */
const utcDateTime = (d: Date) => {
  const iso = d.toISOString();
  return `${iso.slice(8, 10)}/${iso.slice(5, 7)}/${iso.slice(0, 4)} ${iso.slice(11, 16)} UTC`;
};

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
  const stop = accountUpdateStop(change.value);
  if (stop) {
    await restrictWabaNumbers(db, change.wabaId, stop.numberReason, stop.end);
    await pauseWabaCampaigns(db, change.wabaId, stop.reason);
    return;
  }
  if ((str(obj(change.value.ban_info)?.waba_ban_state) ?? '').toUpperCase() === 'REINSTATE') await liftWabaRestriction(db, change.wabaId);
}
