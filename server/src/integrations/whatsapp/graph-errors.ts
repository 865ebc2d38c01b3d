import { AppError } from '../../lib/errors';

/** Graph's error body: `{ error: { message, type, code, error_subcode?, error_user_title?, … } }`. */
export interface GraphErrorBody {
  message?: string;
  type?: string;
  code?: number;
  error_subcode?: number;
  error_user_title?: string;
  error_user_msg?: string;
  error_data?: { details?: string } | string;
  fbtrace_id?: string;
}

/**
 * A failed Graph call, already worded for the operator in Spanish while keeping Meta's own
 * reason and code, which is what Meta support and its docs ask for. The HTTP status sent to
 * our browser is never 401 (that would sign the operator out): 400 for input Meta refused,
 * 429 for Meta's rate limits, 502 for everything else upstream.
 */
export class GraphApiError extends AppError {
  constructor(
    message: string,
    statusCode: number,
    readonly code: number | null,
    readonly subcode: number | null,
    readonly httpStatus: number | null,
    readonly metaMessage: string | null,
  ) {
    super(statusCode, message);
    this.name = 'GraphApiError';
  }

  get isRateLimit() {
    return this.code !== null && RATE_LIMIT_CODES.has(this.code);
  }
  get isAuth() {
    return this.code === 190 || this.code === 0;
  }
}

const RATE_LIMIT_CODES = new Set([4, 17, 32, 613, 80007, 80008, 130429]);

/** Builds the operator-facing error from a Graph error body and the HTTP status. */
export function graphErrorFrom(body: GraphErrorBody | undefined, httpStatus: number): GraphApiError {
  const code = typeof body?.code === 'number' ? body.code : null;
  const subcode = typeof body?.error_subcode === 'number' ? body.error_subcode : null;
  const metaMessage = metaReason(body);
  const reference = `(Meta ${code !== null ? `#${code}` : `HTTP ${httpStatus}`}${subcode ? `/${subcode}` : ''}${metaMessage ? `: ${metaMessage}` : ''})`;
  const summary = spanishSummary(code, subcode, httpStatus);
  const status = code !== null && RATE_LIMIT_CODES.has(code) ? 429 : code === 100 || isTemplateSubcode(subcode) ? 400 : 502;
  return new GraphApiError(`${summary} ${reference}`, status, code, subcode, httpStatus, metaMessage);
}

export function graphTimeoutError(seconds: number): GraphApiError {
  return new GraphApiError(`Meta no respondió a tiempo (más de ${seconds} s). Intenta de nuevo.`, 502, null, null, null, null);
}

export function graphNetworkError(reason: string): GraphApiError {
  return new GraphApiError(`No se pudo conectar con la API de WhatsApp de Meta: ${reason}`, 502, null, null, null, null);
}

const isTemplateSubcode = (subcode: number | null) => subcode !== null && subcode >= 2388000 && subcode < 2389000;

function spanishSummary(code: number | null, subcode: number | null, httpStatus: number): string {
  if (isTemplateSubcode(subcode)) return 'Meta rechazó la plantilla.';
  switch (code) {
    case 0:
    case 190:
      return 'Token de acceso inválido o expirado.';
    case 4:
    case 17:
    case 32:
    case 613:
      return 'Se alcanzó el límite de llamadas a la API de Meta. Intenta de nuevo más tarde.';
    case 80007:
    case 80008:
      return 'Se alcanzó el límite de llamadas de Meta para esta cuenta de WhatsApp Business. Intenta de nuevo más tarde.';
    case 10:
      return 'Permiso denegado por Meta: el token no tiene acceso a este recurso.';
    case 100:
      return subcode === 33
        ? 'El identificador no existe en Meta o el token no tiene acceso a él.'
        : 'Meta rechazó un parámetro de la petición.';
    case 200002:
      return 'Meta no pudo crear la plantilla.';
    case 192:
      return 'Meta rechazó el número de teléfono.';
    case 368:
      return 'La cuenta está bloqueada temporalmente por Meta por infringir sus políticas.';
    case 131031:
      return 'La cuenta de WhatsApp Business está bloqueada o restringida por Meta.';
    case 1:
    case 2:
      return 'El servicio de Meta no está disponible temporalmente.';
  }
  if (code !== null && code >= 200 && code <= 299) return 'Falta un permiso de la API de Meta para este token.';
  if (httpStatus >= 500) return 'El servicio de Meta no está disponible temporalmente.';
  return 'Meta devolvió un error.';
}

/** Meta's most useful human text: the user-facing title/message when present, else message + details. */
function metaReason(body: GraphErrorBody | undefined): string | null {
  if (!body) return null;
  const details = typeof body.error_data === 'string' ? body.error_data : body.error_data?.details;
  const user = [body.error_user_title, body.error_user_msg].filter(Boolean).join(': ');
  const main = user || body.message || '';
  // Meta often repeats the same sentence in details; say it once.
  const extra = details && !main.includes(details) ? details : '';
  return [main, extra].filter(Boolean).join(' — ') || null;
}
