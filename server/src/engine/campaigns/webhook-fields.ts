import type { Db } from '../../db/client';
import { applyMarketingPreference } from '../../services/blacklist/marketing-opt-out';
import { learnBsuids } from '../../services/contacts/contact-bsuids';
import { phoneKey, toE164 } from '../../lib/phone';
import { toBsuid } from '../../lib/bsuid';
import { numberOwners } from '../../services/blacklist/opt-out';
import { applyLimitUpdate, limitOfChange } from '../../services/whatsapp-accounts/messaging-limit';
import { applyAccountUpdate } from './account-update';
import { applyThroughputUpgrades, upgradeOfChange } from './throughput-webhook';
import { recordMetaEvents } from './meta-events';
import type { InboundText } from '../../services/campaigns/inbound-text';
import type { MetaChange } from './webhook-payload';

/**
 * Webhook fields other than `messages`, each read by its own small handler. Every change is
 * recorded first (meta-events.ts); then the handlers of its field run, in the batch's
 * transaction. A field nobody handles is only recorded. Other parts add theirs with `onField`
 * (e.g. messaging limits on business_capability_update, throughput on
 * phone_number_quality_update, template effects on template_category_update) instead of
 * touching the parser.
 */
export type FieldHandler = (db: Db, change: MetaChange) => Promise<void>;

const handlers = new Map<string, FieldHandler[]>();

export function onField(field: string, handler: FieldHandler): void {
  const list = handlers.get(field) ?? [];
  if (!list.includes(handler)) list.push(handler);
  handlers.set(field, list);
}

export async function applyChanges(db: Db, changes: MetaChange[]): Promise<void> {
  if (!changes.length) return;
  await recordMetaEvents(db, changes);
  for (const change of changes) {
    for (const handle of handlers.get(change.field) ?? []) await handle(db, change);
  }
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : null);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null);

/** user_preferences: `marketing_messages` stop / resume (Meta's user_preferences reference). */
async function applyUserPreferences(db: Db, change: MetaChange): Promise<void> {
  const prefs = Array.isArray(change.value.user_preferences) ? change.value.user_preferences : [];
  for (const raw of prefs) {
    const p = obj(raw);
    if (!p || str(p.category) !== 'marketing_messages') continue;
    const value = (str(p.value) ?? '').toLowerCase();
    if (value !== 'stop' && value !== 'resume') continue;
    const waId = str(p.wa_id) ?? '';
    await applyMarketingPreference(db, { phoneNumberId: change.phoneNumberId ?? '', wabaId: change.wabaId, waId, userId: str(p.user_id), value });
    // A change naming both the phone and the BSUID teaches the tenant that pair.
    await learnInboundBsuids(db, [{ phoneNumberId: change.phoneNumberId ?? '', wabaId: change.wabaId, from: waId, userId: str(p.user_id), text: '', buttonPayload: null }]);
  }
}

/** The portfolio's messaging limit, in the new and the older shapes (messaging-limit.ts). */
async function applyMessagingLimit(db: Db, change: MetaChange): Promise<void> {
  const limit = limitOfChange(change.field, change.value);
  if (limit === null || !change.wabaId) return;
  await applyLimitUpdate(db, { wabaId: change.wabaId, limit, at: change.at ?? new Date() });
}

/** THROUGHPUT_UPGRADE: the number now sends at 1,000 msg/s (throughput-webhook.ts). */
async function applyThroughputUpgrade(db: Db, change: MetaChange): Promise<void> {
  const upgrade = upgradeOfChange(change.field, change.wabaId, change.value);
  if (upgrade) await applyThroughputUpgrades(db, [upgrade]);
}

onField('account_update', applyAccountUpdate);
onField('phone_number_quality_update', applyThroughputUpgrade);
onField('business_capability_update', applyMessagingLimit);
onField('phone_number_quality_update', applyMessagingLimit);
onField('user_preferences', applyUserPreferences);

/** Inbound messages that name both the phone and the BSUID teach the number's tenant that pair. */
export async function learnInboundBsuids(db: Db, inbound: InboundText[]): Promise<void> {
  for (const m of inbound) {
    const bsuid = toBsuid(m.userId);
    const e164 = m.from ? toE164('+' + m.from.replace(/\D/g, '')) : null;
    if (!bsuid || !e164) continue;
    const owners = await numberOwners(db, m.phoneNumberId, m.wabaId);
    await learnBsuids(db, owners.map((o) => ({ userId: o.userId, phoneKey: phoneKey(e164), bsuid })));
  }
}
