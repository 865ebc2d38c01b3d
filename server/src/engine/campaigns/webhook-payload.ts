/**
 * Reading Meta's webhook envelopes defensively: unknown fields and shapes are ignored, never
 * fatal (Meta adds fields over time and one odd change must not block the inbox).
 */

export interface StatusUpdate {
  wamid: string;
  status: string;
  /** ISO time of the event at Meta. */
  at: string;
  bizOpaque: string | null;
  /** `metadata.phone_number_id` of the change: the number the message was sent from. */
  phoneNumberId: string;
  error: { code: number | null; message: string | null } | null;
}

export interface InboundText {
  phoneNumberId: string;
  /** `entry.id`: the WABA the number belongs to; routing requires it to match the account's. */
  wabaId: string;
  from: string;
  text: string;
  /** A quick-reply tap's `button.payload` (ours are signed: see button-payload.ts), else null. */
  buttonPayload: string | null;
}

export interface TemplateUpdate {
  /** message_template_status_update, template_category_update or message_template_quality_update. */
  field: string;
  wabaId: string;
  value: Record<string, unknown>;
  /** The entry's `time` (Meta's time of the event); null when absent. */
  at: Date | null;
}

export interface WebhookContents {
  statuses: StatusUpdate[];
  inbound: InboundText[];
  templateUpdates: TemplateUpdate[];
}

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

export function readWebhook(payload: unknown, into: WebhookContents = { statuses: [], inbound: [], templateUpdates: [] }): WebhookContents {
  const root = obj(payload);
  if (!root) return into;
  for (const entry of arr(root.entry)) {
    const e = obj(entry);
    if (!e) continue;
    for (const change of arr(e.changes)) {
      const c = obj(change);
      const value = obj(c?.value);
      if (!c || !value) continue;
      if (typeof c.field === 'string' && TEMPLATE_FIELDS.has(c.field)) {
        const wabaId = str(e.id);
        const seconds = Number(e.time);
        const at = Number.isFinite(seconds) && seconds > 0 ? new Date(seconds * 1000) : null;
        if (wabaId) into.templateUpdates.push({ field: c.field, wabaId, value, at });
        continue;
      }
      if (c.field !== 'messages') continue;
      const phoneNumberId = str(obj(value.metadata)?.phone_number_id) ?? '';
      for (const s of arr(value.statuses)) readStatus(obj(s), phoneNumberId, into.statuses);
      for (const m of arr(value.messages)) {
        const inbound = readInbound(obj(m), phoneNumberId, str(e.id) ?? '');
        if (inbound) into.inbound.push(inbound);
      }
    }
  }
  return into;
}

function readStatus(s: Json | null, phoneNumberId: string, out: StatusUpdate[]) {
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
  });
}

/** Text, a quick-reply button or an interactive reply: whatever the person wrote or tapped. */
function readInbound(m: Json | null, phoneNumberId: string, wabaId: string): InboundText | null {
  const from = str(m?.from);
  if (!m || !from) return null;
  const text =
    str(obj(m.text)?.body) ??
    str(obj(m.button)?.text) ??
    str(obj(m.button)?.payload) ??
    str(obj(obj(m.interactive)?.button_reply)?.title) ??
    str(obj(obj(m.interactive)?.list_reply)?.title);
  return text ? { phoneNumberId, wabaId, from, text, buttonPayload: str(obj(m.button)?.payload) ?? null } : null;
}
