import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Meta signs the exact bytes it sends: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256>` keyed
 * with the app secret. Compared in constant time.
 */
export function isValidSignature(rawBody: Buffer, header: string | undefined, appSecret: string): boolean {
  if (!header?.startsWith('sha256=')) return false;
  const given = Buffer.from(header.slice('sha256='.length).trim().toLowerCase(), 'utf8');
  const expected = Buffer.from(createHmac('sha256', appSecret).update(rawBody).digest('hex'), 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
