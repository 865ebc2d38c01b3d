import { AppError } from '../../lib/errors';
import { KommoError } from '../../integrations/kommo/errors';

export const KOMMO_TIMEOUT = 'Kommo tardó demasiado en responder. Intenta de nuevo en unos minutos.';

/**
 * A Kommo failure as an API answer. Never 401: the web client treats our 401 as "signed
 * out", and a wrong Kommo token must not end the operator's session.
 */
export function toAppError(err: unknown): unknown {
  // Our own deadline (AbortSignal.timeout) rejects with a DOMException, not a KommoError.
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) {
    return new AppError(504, KOMMO_TIMEOUT);
  }
  if (!(err instanceof KommoError)) return err;
  switch (err.kind) {
    case 'invalid_subdomain':
    case 'unauthorized':
    case 'payment_required':
    case 'not_found':
    case 'rejected':
      return new AppError(400, err.message);
    default:
      return new AppError(502, err.message);
  }
}
