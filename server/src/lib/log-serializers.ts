/**
 * What request logs may carry. Query strings hold search terms, filters, phones
 * (`/blacklist/:id/check?phone=`) and Meta's verify token, so only the path is logged.
 * Database errors carry their bound parameters (contact data, sealed tokens) in `params`,
 * in the message and in PostgreSQL's `detail`, so only the statement and the code remain.
 */
export const pathOnly = (url: string) => {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
};

/**
 * An invitation link carries its secret in the path (`/invitations/<token>`, the page and the
 * public preview): whoever reads the logs must not be able to join with it. Ids and `accept`
 * are too short to be a token and stay readable.
 */
export const hideInvitationToken = (path: string) => path.replace(/(\/invitations\/)[A-Za-z0-9_-]{20,}/g, '$1[oculto]');

export function serializeRequest(req: { method: string; url: string; ip?: string }) {
  return { method: req.method, url: hideInvitationToken(pathOnly(req.url)), remoteAddress: req.ip };
}

interface LoggedError {
  type: string;
  message: string;
  stack?: string;
  code?: string;
  query?: string;
  cause?: LoggedError;
}

export function serializeError(err: unknown, depth = 0, fromDatabase = false): LoggedError {
  if (!(err instanceof Error)) return { type: typeof err, message: fromDatabase ? 'database error' : String(err) };
  const e = err as Error & { code?: unknown; query?: unknown; params?: unknown; cause?: unknown };
  const isQueryError = 'params' in e && typeof e.query === 'string';
  // PostgreSQL quotes the offending value in its own messages ("invalid input syntax: …"), so
  // under a failed query only the SQLSTATE code is kept.
  const hideText = isQueryError || fromDatabase;
  const out: LoggedError = {
    type: e.name,
    message: hideText ? (isQueryError ? 'Failed query' : 'database error') : stripParams(e.message),
    stack: hideText ? undefined : e.stack ? stripParams(e.stack) : undefined,
  };
  if (typeof e.code === 'string') out.code = e.code;
  if (isQueryError) out.query = e.query as string;
  if (e.cause && depth < 3) out.cause = serializeError(e.cause, depth + 1, hideText);
  return out;
}

const stripParams = (text: string) => {
  const at = text.indexOf('\nparams:');
  return at === -1 ? text : text.slice(0, at);
};

export const logSerializers = { req: serializeRequest, err: serializeError };
