import { request } from 'undici';
import { isTimeout } from '../timeouts';

/** Uploads carry files: a longer wait than the Graph client's JSON calls. */
const UPLOAD_TIMEOUT_MS = 60_000;

interface GraphUploadError {
  code?: number;
  message?: string;
  error_user_msg?: string;
  error_data?: { details?: string };
}

/**
 * One upload POST to the Graph API (media for messages, template samples): the JSON answer on a
 * 2xx, else an error worded for the operator with Meta's own reason. Callers check the token's
 * characters first, as the Graph client does.
 */
export async function postUpload(
  url: string,
  headers: Record<string, string>,
  body: Buffer | FormData | undefined,
  fail: (reason: string) => Error,
): Promise<Record<string, unknown>> {
  let payload: Buffer | undefined;
  let contentType: Record<string, string> = {};
  if (body instanceof FormData) {
    // A multipart body is encoded by the runtime's own Request, then sent as bytes: the undici
    // package's request never finished a body of the runtime's FormData with a Blob in it on
    // Node 24 (the two undicis disagree on Blob). The files are already in memory.
    const encoded = new Request('http://localhost/', { method: 'POST', body });
    payload = Buffer.from(await encoded.arrayBuffer());
    contentType = { 'content-type': encoded.headers.get('content-type')! };
  } else payload = body;
  let res;
  try {
    res = await request(url, {
      method: 'POST',
      headers: { accept: 'application/json', ...headers, ...contentType },
      body: payload,
      headersTimeout: UPLOAD_TIMEOUT_MS,
      bodyTimeout: UPLOAD_TIMEOUT_MS,
      signal: AbortSignal.timeout(UPLOAD_TIMEOUT_MS + 1_000),
    });
  } catch (err) {
    const e = err as { code?: string };
    const timeout = isTimeout(err);
    throw fail(timeout ? 'WhatsApp no respondió a tiempo' : `sin conexión con WhatsApp (${e?.code ?? 'error de red'})`);
  }
  const text = await res.body.text().catch(() => '');
  let json: Record<string, unknown> | null = null;
  try {
    json = text ? (JSON.parse(text) as Record<string, unknown>) : null;
  } catch {
    json = null;
  }
  if (res.statusCode >= 200 && res.statusCode < 300 && json) return json;
  const error = (json?.error ?? null) as GraphUploadError | null;
  const detail = error
    ? `${error.error_user_msg ?? error.message ?? `código ${error.code}`}${error.error_data?.details ? `: ${error.error_data.details}` : ''}`
    : `HTTP ${res.statusCode}`;
  throw fail(detail.slice(0, 300));
}
