// Helpers for the tests of Meta's 2025–26 rules: one portfolio with two WABAs, templates of the
// three categories, and readers for the webhook fields Meta posts.
import type { WebhookReceiver } from './webhook-receiver';

export const SECRET = 'meta-rules-secret';
export const BUSINESS = '7770001';
export const WABA_A = '6001';
export const WABA_B = '6002';
export const PN_A1 = '5101';
export const PN_A2 = '5102';
export const PN_B1 = '5201';
export const TOKEN_A = 'tok-a';
export const TOKEN_B = 'tok-b';

export const numbers = [
  { phoneNumberId: PN_A1, wabaId: WABA_A, token: TOKEN_A, displayPhoneNumber: '5491150000001', throughput: 1000, businessId: BUSINESS, messagingLimit: 'TIER_250' },
  { phoneNumberId: PN_A2, wabaId: WABA_A, token: TOKEN_A, displayPhoneNumber: '5491150000002', throughput: 1000, businessId: BUSINESS },
  { phoneNumberId: PN_B1, wabaId: WABA_B, token: TOKEN_B, displayPhoneNumber: '5491150000003', throughput: 80, businessId: BUSINESS },
];

const body = (text: string) => [{ type: 'BODY', text }];
export const templates = [
  ...[WABA_A, WABA_B].flatMap((wabaId) => [
    { wabaId, name: 'promo', language: 'es', category: 'MARKETING' as const, components: body('Hola, este mes hay descuentos.') },
    { wabaId, name: 'aviso', language: 'es', category: 'UTILITY' as const, components: body('Tu pedido está en camino.') },
    { wabaId, name: 'codigo', language: 'es', category: 'AUTHENTICATION' as const, components: body('Tu código de acceso es 1234.') },
  ]),
];

export function tokenOf(pn: string): string {
  return pn === PN_B1 ? TOKEN_B : TOKEN_A;
}

/** A template send without parameters; `to` may be replaced by `recipient` through `extra`. */
export function send(to: string | undefined, name: string, extra: Record<string, unknown> = {}) {
  const payload: Record<string, unknown> = { messaging_product: 'whatsapp', recipient_type: 'individual', type: 'template', template: { name, language: { code: 'es' }, components: [] }, ...extra };
  if (to !== undefined) payload.to = to;
  return payload;
}

export interface Change {
  wabaId: string;
  time?: number;
  field: string;
  value: any;
}

/** Every change received, in arrival order. */
export function changes(hook: WebhookReceiver, field?: string): Change[] {
  const all: Change[] = hook.received.flatMap((r) => r.body.entry.flatMap((e: any) =>
    e.changes.map((c: any) => ({ wabaId: e.id, time: e.time, field: c.field, value: c.value }))));
  return field ? all.filter((c) => c.field === field) : all;
}

/** Statuses for one recipient (by recipient_id or recipient_user_id), in arrival order. */
export function statusesOf(hook: WebhookReceiver, who: string): any[] {
  return hook.statuses().filter((s) => s.recipient_id === who || s.recipient_user_id === who);
}

export function phone(i: number): string {
  return `54911${String(30000000 + i)}`;
}
