import { AppError } from '../../lib/errors';

/** Why a Kommo call failed; `message` is Spanish and is shown to the operator as is. */
export type KommoErrorKind =
  | 'timeout'
  | 'invalid_subdomain'
  | 'unauthorized'
  | 'payment_required'
  | 'blocked'
  | 'not_found'
  | 'rejected'
  | 'unavailable'
  | 'rate_limited';

/** What the operator's input can fix is a 400; the rest is Kommo's side (502) or too slow (504). */
const ANSWER_STATUS: Record<KommoErrorKind, number> = {
  timeout: 504,
  invalid_subdomain: 400,
  unauthorized: 400,
  payment_required: 400,
  not_found: 400,
  rejected: 400,
  blocked: 502,
  unavailable: 502,
  rate_limited: 502,
};

/**
 * A failed Kommo call, an AppError like every integration error so the errors plugin answers
 * it as is. Never 401: the web client treats our 401 as "signed out", and a wrong Kommo token
 * must not end the operator's session. `status` is Kommo's HTTP status, not ours.
 */
export class KommoError extends AppError {
  constructor(
    readonly kind: KommoErrorKind,
    message: string,
    readonly status?: number,
  ) {
    super(ANSWER_STATUS[kind], message);
    this.name = 'KommoError';
  }

  /** A call that must not be repeated failed without a clear answer: Kommo may have done the work. */
  unsure = false;
  /** A batch Kommo refused (400 with validation-errors): which entries, by request_id, and why. */
  refused: Array<{ requestId: string; detail: string }> | null = null;
}

export const KOMMO_TIMEOUT = 'Kommo tardó demasiado en responder. Intenta de nuevo en unos minutos.';

/**
 * A call cut short by the caller's own deadline (AbortSignal.timeout) rejects with a
 * DOMException, not a KommoError: this names it as one. Anything else passes through.
 */
export function kommoDeadline(err: unknown): unknown {
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) {
    return new KommoError('timeout', KOMMO_TIMEOUT);
  }
  return err;
}

export function messageForStatus(status: number, subdomain: string): { kind: KommoErrorKind; message: string } {
  switch (status) {
    case 401:
      return { kind: 'unauthorized', message: 'Kommo rechazó el token de acceso (401). Verifica el token de la cuenta.' };
    case 402:
      return { kind: 'payment_required', message: 'La suscripción de la cuenta Kommo está vencida (402).' };
    case 403:
      return {
        kind: 'blocked',
        message: 'Kommo bloqueó temporalmente las peticiones de esta cuenta (403). Intenta de nuevo más tarde.',
      };
    case 404:
      return { kind: 'not_found', message: `No se encontró la cuenta Kommo "${subdomain}" (404). Verifica el subdominio.` };
    default:
      return { kind: 'rejected', message: `Kommo rechazó la petición (HTTP ${status}).` };
  }
}
