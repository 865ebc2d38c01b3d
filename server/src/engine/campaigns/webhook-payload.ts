/**
 * Reading Meta's webhook envelopes defensively: unknown fields and shapes are ignored, never
 * fatal (Meta adds fields over time and one odd change must not block the inbox).
 */
import type { InboundText } from '../../services/campaigns/inbound-text';

export type { InboundText };

export interface StatusUpdate {
  wamid: string;
  status: string;
  /** ISO time of the event at Meta. */
  at: string;
  bizOpaque: string | null;
  /** `metadata.phone_number_id` of the change: the number the message was sent from. */
  phoneNumberId: string;
  error: { code: number | null; message: string | null } | null;
  /** `pricing` (status-pricing.ts): what Meta charges for the message; null when absent. */
  pricing?: StatusPricing | null;
  /** `recipient_id` (the phone); absent for username users. */
  recipientPhone?: string | null;
  /** `recipient_user_id` (BSUID), when sent. */
  recipientUserId?: string | null;
  /** `entry.id`. */
  wabaId?: string;
}

export interface StatusPricing {
  category: string | null;
  type: string | null;
  model: string | null;
}

/**
 * One change of a webhook, as Meta sent it: every field other than `messages` (account_update,
 * user_preferences, phone_number_quality_update…), and a `messages` change's value-level
 * `errors`. applyBatch records each one (meta-events.ts) and hands it to the handlers of its
 * field (webhook-fields.ts), where other code adds its own.
 */
export interface MetaChange {
  field: string;
  /** `entry.id`: the WABA. */
  wabaId: string;
  /** `metadata.phone_number_id` when the change carries one. */
  phoneNumberId: string | null;
  value: Record<string, unknown>;
  /** Meta's time of the event (`entry.time`, or the value's own timestamp); null when absent. */
  at: Date | null;
}

export interface TemplateUpdate {
  /** message_template_status_update, template_category_update or message_template_quality_update. */
  field: string;
  wabaId: string;
  value: Record<string, unknown>;
  /** The entry's `time` (Meta's time of the event); null when absent. */
  at: Date | null;
}

/**
 * A `user_actions` entry of a `messages` change (Marketing Messages API): `action_type`
 * marketing_messages_link_click with `marketing_messages_link_click_data` {click_component,
 * product_id, click_id, tracking_token}. Meta's documented shape names no person; the change's
 * `contacts[]` (wa_id, user_id) or a `context.id` attribute it when present (link-clicks.ts).
 */
export interface LinkClick {
  phoneNumberId: string;
  wabaId: string;
  /** ISO time of the click. */
  at: string;
  clickId: string | null;
  component: string | null;
  from: string | null;
  userId: string | null;
  contextWamid: string | null;
}

export interface WebhookContents {
  statuses: StatusUpdate[];
  /** Link clicks of marketing messages (`user_actions`). */
  clicks?: LinkClick[];
  inbound: InboundText[];
  templateUpdates: TemplateUpdate[];
  /** Every other change (see MetaChange). */
  changes: MetaChange[];
}

export const emptyContents = (): WebhookContents => ({ statuses: [], inbound: [], templateUpdates: [], changes: [], clicks: [] });

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : null);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null);

function isoFromUnix(v: unknown): string {
  const seconds = Number(v);
  return Number.isFinite(seconds) && seconds > 0 ? new Date(seconds * 1000).toISOString() : new Date().toISOString();
}

/** The template fields of a WABA's webhook (template-risk.ts applies them). */
const TEMPLATE_FIELDS = new Set(['message_template_status_update', 'template_category_update', 'message_template_quality_update']);

function timeOf(v: unknown): Date | null {
  const seconds = Number(v);
  return Number.isFinite(seconds) && seconds > 0 ? new Date(seconds * 1000) : null;
}

export function readWebhook(payload: unknown, into: WebhookContents = emptyContents()): WebhookContents {
  into.changes ??= [];
  const root = obj(payload);
  if (!root) return into;
  for (const entry of arr(root.entry)) {
    const e = obj(entry);
    if (!e) continue;
    for (const change of arr(e.changes)) {
      const c = obj(change);
      const value = obj(c?.value);
      if (!c || !value) continue;
      const field = str(c.field) ?? '';
      const changeWaba = str(e.id) ?? '';
      if (field !== 'messages') {
        into.changes.push({
          field: field.slice(0, 100),
          wabaId: changeWaba,
          phoneNumberId: str(obj(value.metadata)?.phone_number_id),
          value,
          at: timeOf(e.time) ?? timeOf(value.timestamp),
        });
      } else if (arr(value.errors).length) {
        into.changes.push({
          field: 'messages',
          wabaId: changeWaba,
          phoneNumberId: str(obj(value.metadata)?.phone_number_id),
          value: { errors: value.errors },
          at: timeOf(e.time),
        });
      }
      if (TEMPLATE_FIELDS.has(field)) {
        const wabaId = str(e.id);
        const seconds = Number(e.time);
        const at = Number.isFinite(seconds) && seconds > 0 ? new Date(seconds * 1000) : null;
        if (wabaId) into.templateUpdates.push({ field, wabaId, value, at });
        continue;
      }
      if (c.field !== 'messages') continue;
      const phoneNumberId = str(obj(value.metadata)?.phone_number_id) ?? '';
      for (const s of arr(value.statuses)) readStatus(obj(s), phoneNumberId, into.statuses, changeWaba);
      const contacts = arr(value.contacts).map(obj);
      for (const a of arr(value.user_actions)) {
        const click = readLinkClick(obj(a), phoneNumberId, changeWaba, contacts[0] ?? null);
        if (click) (into.clicks ??= []).push(click);
      }
      for (const m of arr(value.messages)) {
        const inbound = readInbound(obj(m), phoneNumberId, str(e.id) ?? '', contacts);
        if (inbound) into.inbound.push(inbound);
      }
    }
  }
  return into;
}

function readStatus(s: Json | null, phoneNumberId: string, out: StatusUpdate[], wabaId = '') {
  const wamid = str(s?.id);
  const status = str(s?.status);
  if (!s || !wamid || !status) return;
  const firstError = obj(arr(s.errors)[0]);
  const details = str(obj(firstError?.error_data)?.details);
  out.push({
    wamid,
    status,
    at: isoFromUnix(s.timestamp),
    bizOpaque: str(s.biz_opaque_callback_data),
    phoneNumberId,
    error: firstError
      ? {
          code: typeof firstError.code === 'number' ? firstError.code : null,
          message: [str(firstError.title) ?? str(firstError.message), details].filter(Boolean).join(': ') || null,
        }
      : null,
    pricing: readPricing(obj(s.pricing)),
    recipientPhone: str(s.recipient_id),
    recipientUserId: str(s.recipient_user_id),
    wabaId,
  });
}

function readLinkClick(a: Json | null, phoneNumberId: string, wabaId: string, contact: Json | null): LinkClick | null {
  if (!a || str(a.action_type) !== 'marketing_messages_link_click') return null;
  const data = obj(a.marketing_messages_link_click_data);
  const cut = (v: unknown, n: number) => str(v)?.slice(0, n) ?? null;
  return {
    phoneNumberId,
    wabaId,
    at: isoFromUnix(a.timestamp),
    clickId: cut(data?.click_id, 200),
    component: cut(data?.click_component, 20),
    from: cut(contact?.wa_id, 40),
    userId: cut(contact?.user_id, 200),
    contextWamid: cut(obj(a.context)?.id ?? obj(data?.context)?.id, 200),
  };
}

/** `pricing` of a status: category, type (regular, free_customer_service, free_entry_point), model (PMP). */
function readPricing(p: Json | null): StatusPricing | null {
  if (!p) return null;
  const cut = (v: unknown) => str(v)?.slice(0, 60) ?? null;
  const pricing = { category: cut(p.category), type: cut(p.type), model: cut(p.pricing_model) };
  return pricing.category || pricing.type || pricing.model ? pricing : null;
}

/**
 * Every inbound message: text, a quick-reply button, an interactive reply, or media (image,
 * audio, document, sticker, location, reaction…, recorded with its type and no body). `text` is
 * what the opt-out keywords read ('' for media). A username user's message has no `from`, only
 * `from_user_id` (and `contacts[].user_id`).
 */
function readInbound(m: Json | null, phoneNumberId: string, wabaId: string, contacts: Array<Json | null> = []): InboundText | null {
  const from = str(m?.from) ?? '';
  const contact = contacts.find((c) => c && (!from || str(c.wa_id) === from)) ?? contacts[0] ?? null;
  const userId = str(m?.from_user_id) ?? str(contact?.user_id);
  if (!m || (!from && !userId)) return null;
  const text =
    str(obj(m.text)?.body) ??
    str(obj(m.button)?.text) ??
    str(obj(m.button)?.payload) ??
    str(obj(obj(m.interactive)?.button_reply)?.title) ??
    str(obj(obj(m.interactive)?.list_reply)?.title);
  const cut = (v: string | null, n: number) => (v === null ? null : v.slice(0, n));
  return {
    phoneNumberId,
    wabaId,
    from,
    text: text ?? '',
    buttonPayload: cut(str(obj(m.button)?.payload), 256),
    userId,
    wamid: cut(str(m.id), 200),
    type: (str(m.type) ?? (text ? 'text' : 'unknown')).slice(0, 40),
    body: cut(text, 4096),
    // A reaction names the message it reacts to in `reaction.message_id` (Meta sends no context).
    contextWamid: cut(str(obj(m.context)?.id) ?? str(obj(m.reaction)?.message_id), 200),
    sentAt: timeOf(m.timestamp),
  };
}
