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
