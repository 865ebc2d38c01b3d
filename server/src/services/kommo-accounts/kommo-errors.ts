import { AppError } from '../../lib/errors';
import { KommoError } from '../../integrations/kommo/errors';

/**
 * A Kommo failure as an API answer. Never 401: the web client treats our 401 as "signed
 * out", and a wrong Kommo token must not end the operator's session.
 */
export function toAppError(err: unknown): unknown {
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
