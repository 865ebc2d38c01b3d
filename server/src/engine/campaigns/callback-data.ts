import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/**
 * `biz_opaque_callback_data` of our sends: `masivo:{campaignId}:{recipientId}:{tag}`.
 *
 * Every tenant's number posts statuses to the one webhook of the shared Meta app, and any
 * tenant can put any callback data on a send of its own. The tag (a truncated HMAC under a
 * key derived from APP_SECRET, apart from the token and secret-box keys) is what makes a
 * status naming one of our recipients come from one of our own requests.
 */
const PATTERN = /^masivo:(\d{1,15}):(\d{1,15}):([0-9a-f]{20})$/;
const TAG_HEX = 20;

export interface CallbackTarget {
  campaignId: number;
  recipientId: number;
}

export interface CallbackData {
  sign(target: CallbackTarget): string;
  /** The target of an authentic callback string; null for anything else (unsigned, forged, foreign). */
  verify(opaque: string | null | undefined): CallbackTarget | null;
}

/**
 * Callback strings verified authentic, newest last: each send gets about three statuses (sent,
 * delivered, read, most within seconds of each other), so a string verified once is met again
 * soon, and an HMAC per later status is what this spares. Only verified strings are kept (the
 * same string always verifies the same way), and the oldest go first past the bound: about
 * 8 MB, filled in seconds at full rate. Signing remembers nothing: the process that sends is
 * seldom the one that receives the statuses.
 */
export const KNOWN_AUTHENTIC_MAX = 50_000;

export function createCallbackData(appSecret: string, knownMax = KNOWN_AUTHENTIC_MAX): CallbackData {
  const key = Buffer.from(hkdfSync('sha256', appSecret, 'masivo', 'whatsapp-callback-data', 32));
  const tagOf = (campaignId: number, recipientId: number) =>
    createHmac('sha256', key).update(`${campaignId}:${recipientId}`).digest('hex').slice(0, TAG_HEX);
  const known = new Map<string, CallbackTarget>();
  const remember = (opaque: string, target: CallbackTarget) => {
    known.set(opaque, target);
    if (known.size > knownMax) known.delete(known.keys().next().value as string);
  };
  return {
    sign: ({ campaignId, recipientId }) => `masivo:${campaignId}:${recipientId}:${tagOf(campaignId, recipientId)}`,
    verify(opaque) {
      if (!opaque) return null;
      const seen = known.get(opaque);
      if (seen) return { ...seen };
      const m = PATTERN.exec(opaque);
      if (!m) return null;
      const campaignId = Number(m[1]);
      const recipientId = Number(m[2]);
      const expected = Buffer.from(tagOf(campaignId, recipientId));
      if (!timingSafeEqual(expected, Buffer.from(m[3]))) return null;
      remember(opaque, { campaignId, recipientId });
      return { campaignId, recipientId };
    },
  };
}

/** Looks like ours (so worth a warning when it does not verify). */
export const claimsToBeOurs = (opaque: string | null | undefined) => !!opaque && opaque.startsWith('masivo:');
