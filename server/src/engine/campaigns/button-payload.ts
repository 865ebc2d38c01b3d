import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/**
 * Quick-reply payloads of our sends: `masivo-qr:{campaignId}:{buttonIndex}:{tag}`. Meta echoes
 * the payload in the reply's webhook; the tag (a truncated HMAC under its own key derived
 * from APP_SECRET, as in callback-data.ts) lets a reply be attributed to a campaign and a
 * button without trusting text any sender could type.
 */
const PATTERN = /^masivo-qr:(\d{1,15}):(\d{1,2}):([0-9a-f]{20})$/;

export interface ButtonTarget {
  campaignId: number;
  index: number;
}

export interface ButtonPayload {
  sign(target: ButtonTarget): string;
  verify(payload: string | null | undefined): ButtonTarget | null;
}

export function createButtonPayload(appSecret: string): ButtonPayload {
  const key = Buffer.from(hkdfSync('sha256', appSecret, 'masivo', 'whatsapp-button-payload', 32));
  const tagOf = (campaignId: number, index: number) => createHmac('sha256', key).update(`${campaignId}:${index}`).digest('hex').slice(0, 20);
  return {
    sign: ({ campaignId, index }) => `masivo-qr:${campaignId}:${index}:${tagOf(campaignId, index)}`,
    verify(payload) {
      const m = payload ? PATTERN.exec(payload) : null;
      if (!m) return null;
      const campaignId = Number(m[1]);
      const index = Number(m[2]);
      return timingSafeEqual(Buffer.from(tagOf(campaignId, index)), Buffer.from(m[3]!)) ? { campaignId, index } : null;
    },
  };
}
