import { createHmac, randomBytes } from 'node:crypto';

/**
 * Standard Webhooks signing: a secret is `whsec_` + base64 of random bytes; a signature is
 * `v1,` + base64(HMAC-SHA256(key, `{id}.{timestamp}.{body}`)) with the base64-decoded key.
 * Several signatures (during a rotation) go space-separated in one `webhook-signature` header.
 */
const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;

export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/** A new message id (the webhook-id header), stable across every attempt of a delivery. */
export function newMessageId(): string {
  return 'msg_' + randomBytes(16).toString('base64url');
}

export function signatureOf(secret: string, msgId: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  return 'v1,' + createHmac('sha256', key).update(`${msgId}.${timestamp}.${body}`).digest('base64');
}

/** The three Standard Webhooks headers of one attempt, signed with every secret given (newest first). */
export function webhookHeaders(secrets: readonly string[], msgId: string, body: string, now = Date.now()): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  return {
    'webhook-id': msgId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((s) => signatureOf(s, msgId, timestamp, body)).join(' '),
  };
}
