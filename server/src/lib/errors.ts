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
