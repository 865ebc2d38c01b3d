import { toWellFormedText } from '@masivo/contract/common';

/**
 * A signed webhook is Meta's word and must be stored whatever a customer typed. jsonb refuses
 * the NUL character and lone surrogates, so both are removed from the decoded strings (keys
 * included), never from the raw JSON text, where a `\\u0000` may be an escaped backslash
 * followed by "u0000". Returns the JSON to store, or null when the body is not JSON.
 */
export function cleanWebhookPayload(raw: Buffer): string | null {
  try {
    return JSON.stringify(clean(JSON.parse(raw.toString('utf8'))));
  } catch {
    // Not JSON, or nested beyond what the stack allows: either way not a payload of Meta's.
    return null;
  }
}

const cleanText = (s: string) => toWellFormedText(s.includes('\u0000') ? s.replaceAll('\u0000', '') : s);

function clean(value: unknown): unknown {
  if (typeof value === 'string') return cleanText(value);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(clean);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[cleanText(k)] = clean(v);
  return out;
}
