import { ROLE_LABEL, type Role } from '@masivo/contract/organizations';

/**
 * The one error type services throw. `message` is Spanish and reaches the operator as
 * `{ error }`; anything that is not an AppError becomes a generic 500.
 */
export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const badRequest = (message: string) => new AppError(400, message);
export const notFound = (message = 'Recurso no encontrado') => new AppError(404, message);
export const conflict = (message: string) => new AppError(409, message);
/** Well-formed input the console refuses to act on (a webhook URL pointing to a private address). */
export const unprocessable = (message: string) => new AppError(422, message);
/** A member whose role does not allow the action (or a user in no organisation). */
export const forbidden = (role: Role | null) =>
  new AppError(403, role ? `Tu rol (${ROLE_LABEL[role]}) no permite esta acción` : 'No perteneces a ninguna organización');
export const badGateway = (message: string) => new AppError(502, message);

/**
 * A stored provider token that no longer decrypts (APP_SECRET changed, or the row was altered).
 * The operator fixes it by entering the token again; campaigns using it pause with this reason.
 */
export class UnreadableTokenError extends AppError {
  constructor() {
    super(409, 'El token guardado ya no se puede leer (cambió la clave del servidor): vuelve a ingresarlo en la cuenta.');
    this.name = 'UnreadableTokenError';
  }
}
