import { META_ERROR_DESCRIPTIONS } from '@masivo/contract/meta-errors';

/**
 * Graph error codes of a template send, by what the sender must do (from Meta's error
 * table). Meta publishes no "retryable" flag; this is the one place that decides.
 */
export type ErrorClass =
  | { kind: 'retry' }
  | { kind: 'permanent' }
  /** The request may have been accepted: never resend; the status webhook settles it. */
  | { kind: 'ambiguous' }
  | { kind: 'systemic'; scope: 'account' | 'template'; reason: string };

/** Transient: the same request may succeed later. 131056 is the (business, user) pair limit. */
export const RETRY_CODES = new Set([130429, 131056, 131000, 131016, 131057, 4, 80007, 1, 2]);

/** Meta's meaning of a code (contract/meta-errors.ts, the one home of these texts), as a sentence. */
const meaning = (code: number) => `${META_ERROR_DESCRIPTIONS[code]}.`;

/** Codes that make every further send of the campaign fail: pause it and tell the operator why. */
const SYSTEMIC: Record<number, { scope: 'account' | 'template'; reason: string }> = {
  0: { scope: 'account', reason: 'El token de acceso de WhatsApp no es válido o expiró. Actualízalo en la cuenta y reanuda la campaña.' },
  190: { scope: 'account', reason: 'El token de acceso de WhatsApp no es válido o expiró. Actualízalo en la cuenta y reanuda la campaña.' },
  3: { scope: 'account', reason: 'La aplicación de Meta no tiene permiso para enviar mensajes con esta cuenta.' },
  10: { scope: 'account', reason: 'Meta denegó el permiso para enviar mensajes con esta cuenta.' },
  131005: { scope: 'account', reason: meaning(131005) },
  131031: { scope: 'account', reason: meaning(131031) },
  131042: { scope: 'account', reason: meaning(131042) },
  131048: { scope: 'account', reason: 'Meta limitó los envíos por la calidad del número (posible spam). Revisa la calidad antes de reanudar.' },
  133010: { scope: 'account', reason: meaning(133010) },
  368: { scope: 'account', reason: meaning(368) },
  132001: { scope: 'template', reason: meaning(132001) },
  132015: { scope: 'template', reason: meaning(132015) },
  132016: { scope: 'template', reason: meaning(132016) },
};

/**
 * 131050: the person stopped marketing messages from this business (WhatsApp's «Ofertas y
 * anuncios» setting). Never retried; the number goes on the tenant's blacklist
 * (services/blacklist/marketing-opt-out.ts) until a user_preferences «resume» arrives.
 */
export const MARKETING_STOPPED = 131050;

export function classifyGraphError(code: number | null, httpStatus: number): ErrorClass {
  if (code === MARKETING_STOPPED) return { kind: 'permanent' };
  if (code !== null) {
    const systemic = SYSTEMIC[code];
    if (systemic) return { kind: 'systemic', ...systemic };
    if (code >= 200 && code <= 299) return { kind: 'systemic', ...SYSTEMIC[10] };
    if (RETRY_CODES.has(code)) return { kind: 'retry' };
    // A 5xx with a code we do not know is still Meta having trouble.
    if (httpStatus >= 500) return { kind: 'retry' };
    return { kind: 'permanent' };
  }
  // No Graph error body (a proxy, an outage page).
  if (httpStatus === 401) return { kind: 'systemic', ...SYSTEMIC[190] };
  if (httpStatus === 429) return { kind: 'retry' };
  // A bare 502/504 from an edge may come after Meta accepted the request: resending could
  // deliver it twice.
  if (httpStatus >= 500) return { kind: 'ambiguous' };
  return { kind: 'permanent' };
}

/** Shown on the detail screen when the engine pauses a campaign. */
export function systemicPauseReason(code: number | null, reason: string): string {
  return code === null ? reason : `${reason} (código ${code})`;
}
