/**
 * Business-scoped user ids (BSUID): Meta's id of a WhatsApp user for one business, sent in
 * webhooks as `user_id` / `from_user_id` / `recipient_user_id` and accepted on send as
 * `recipient`. Format: an ISO country code, a dot, an alphanumeric id (`US.13491208655302741918`);
 * a parent BSUID of a managed business has `ENT.` in between (`US.ENT.11815799212886844830`).
 * A BSUID is never a phone number: phone normalisation leaves it alone (lib/phone.ts).
 */
const BSUID = /^[A-Z]{2}\.(?:ENT\.)?[A-Za-z0-9]{1,64}$/;

export function isBsuid(value: string | null | undefined): boolean {
  return typeof value === 'string' && BSUID.test(value.trim());
}

/** The BSUID as stored (trimmed), or null when the value is not one. */
export function toBsuid(value: unknown): string | null {
  return typeof value === 'string' && isBsuid(value) ? value.trim() : null;
}
