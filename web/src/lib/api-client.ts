import { sessionStore } from './session-storage';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The server's whole JSON answer (e.g. the per-line errors of a refused upload). */
    readonly body?: unknown,
  ) {
    super(message);
  }
}

type Query = Record<string, string | number | boolean | undefined | null>;

function withQuery(path: string, query?: Query): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

/** Listeners run when a 401 ends the session (the auth provider resets its state). */
const unauthorizedListeners = new Set<() => void>();
export const onUnauthorized = (fn: () => void) => {
  unauthorizedListeners.add(fn);
  return () => {
    unauthorizedListeners.delete(fn);
  };
};

let leaving = false;
/**
 * A 401 ends the session once, however many requests were in flight: the token goes,
 * and the browser loads the login page afresh, which also drops every cached answer.
 * The app is not told to route there itself, or the page would change twice.
 */
function endSession() {
  sessionStore.clear();
  if (window.location.pathname.startsWith('/login')) {
    unauthorizedListeners.forEach((fn) => fn());
    return;
  }
  if (leaving) return;
  leaving = true;
  window.location.assign('/login');
}

/**
 * The one place that talks to /api: bearer header, JSON, the server's Spanish `error`
 * as the thrown message, and the spec's rule that any 401 ends the session.
 */
export async function request(method: string, path: string, body?: unknown, query?: Query): Promise<Response> {
  const headers: Record<string, string> = {};
  const token = sessionStore.token();
  if (token) headers.authorization = `Bearer ${token}`;
  // A file (Blob) travels as its own bytes and type; everything else as JSON.
  const raw = body instanceof Blob;
  if (body !== undefined) headers['content-type'] = raw ? body.type || 'application/octet-stream' : 'application/json';
  const res = await fetch(`/api${withQuery(path, query)}`, {
    method,
    headers,
    body: body === undefined ? undefined : raw ? body : JSON.stringify(body),
  });
  if (res.ok) return res;
  const answer: unknown = await res.json().catch(() => undefined);
  const message = (answer as { error?: string } | undefined)?.error ?? '';
  if (res.status === 401 && token) endSession();
  throw new ApiError(res.status, message, answer);
}

async function json<T>(method: string, path: string, body?: unknown, query?: Query): Promise<T> {
  const res = await request(method, path, body, query);
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
}

export const api = {
  get: <T>(path: string, query?: Query) => json<T>('GET', path, undefined, query),
  post: <T>(path: string, body?: unknown, query?: Query) => json<T>('POST', path, body ?? {}, query),
  put: <T>(path: string, body?: unknown) => json<T>('PUT', path, body ?? {}),
  patch: <T>(path: string, body?: unknown) => json<T>('PATCH', path, body ?? {}),
  delete: <T>(path: string) => json<T>('DELETE', path),
};

/** Spec §8: show the server's error when there is one, otherwise the screen's default. */
export function errorMessage(err: unknown, fallback: string): string {
  return err instanceof ApiError && err.message ? err.message : fallback;
}
