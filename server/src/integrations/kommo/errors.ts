/** Why a Kommo call failed; `message` is Spanish and is shown to the operator as is. */
export type KommoErrorKind =
  | 'invalid_subdomain'
  | 'unauthorized'
  | 'payment_required'
  | 'blocked'
  | 'not_found'
  | 'rejected'
  | 'unavailable'
  | 'rate_limited';

export class KommoError extends Error {
  constructor(
    readonly kind: KommoErrorKind,
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'KommoError';
  }
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
