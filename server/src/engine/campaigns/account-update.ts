import type { Db } from '../../db/client';
import { pauseWabaCampaigns } from '../../services/campaigns/campaign-transitions';
import { applyTermsSigned } from '../../services/whatsapp-accounts/marketing-onboarding';
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
export function accountUpdatePauseReason(value: Json): string | null {
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
      const until = str(obj(r)?.expiration);
      return `Meta restringió los mensajes iniciados por la empresa en esta cuenta de WhatsApp Business${until ? ` hasta ${until.slice(0, 40)}` : ''}.`;
    }
  }
  return null;
}

/**
 * account_update: a ban or a messaging restriction pauses every sending campaign of the WABA;
 * MM_LITE_TERMS_SIGNED (`waba_info: {waba_id, owner_business_id}`) opens the Marketing Messages API.
 */
export async function applyAccountUpdate(db: Db, change: MetaChange): Promise<void> {
  if ((str(change.value.event) ?? '').toUpperCase() === 'MM_LITE_TERMS_SIGNED') {
    const waba = obj(change.value.waba_info)?.waba_id;
    await applyTermsSigned(db, typeof waba === 'string' || typeof waba === 'number' ? String(waba) : change.wabaId);
    return;
  }
  const reason = accountUpdatePauseReason(change.value);
  if (reason && change.wabaId) await pauseWabaCampaigns(db, change.wabaId, reason);
}
