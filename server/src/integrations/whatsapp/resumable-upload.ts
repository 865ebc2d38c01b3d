import { errors as undiciErrors, request } from 'undici';
import { ACCESS_TOKEN_PATTERN } from '@masivo/contract/common';

/**
 * Meta's Resumable Upload API, used for a media header's sample when a template is created:
 * `POST /{app-id}/uploads` opens a session for the file's length and type, then
 * `POST /{upload-id}` with `Authorization: OAuth {token}` and `file_offset: 0` carries the
 * bytes and returns the handle that goes into the header's `example.header_handle`.
 */
const UPLOAD_TIMEOUT_MS = 60_000;
/** Meta's session ids look like `upload:MTphdHRh...?sig=ARZ...`: only that shape is followed. */
const SESSION_ID = /^upload:[A-Za-z0-9+/=_\-.:?&%]{1,600}$/;

export interface SampleUpload {
  graphUrl: string;
  appId: string;
  accessToken: string;
  bytes: Buffer;
  mime: string;
  fileName: string;
}

export class SampleUploadError extends Error {}

export async function uploadTemplateSample(u: SampleUpload): Promise<string> {
  if (!ACCESS_TOKEN_PATTERN.test(u.accessToken)) throw new SampleUploadError('el token de acceso guardado no es válido');
  const base = u.graphUrl.replace(/\/+$/, '');
  const query = new URLSearchParams({ file_name: u.fileName, file_length: String(u.bytes.length), file_type: u.mime });
  const session = await post(`${base}/${encodeURIComponent(u.appId)}/uploads?${query}`, { authorization: `Bearer ${u.accessToken}` });
  const id = typeof session.id === 'string' ? session.id : '';
  if (!SESSION_ID.test(id)) throw new SampleUploadError('WhatsApp no abrió la sesión de carga');
  const done = await post(`${base}/${id}`, { authorization: `OAuth ${u.accessToken}`, file_offset: '0', 'content-type': u.mime }, u.bytes);
  if (typeof done.h !== 'string' || !done.h) throw new SampleUploadError('WhatsApp no devolvió el identificador del archivo');
  return done.h;
}

async function post(url: string, headers: Record<string, string>, body?: Buffer): Promise<Record<string, unknown>> {
  let res;
  try {
    res = await request(url, {
      method: 'POST',
      headers: { accept: 'application/json', ...headers },
      body,
      headersTimeout: UPLOAD_TIMEOUT_MS,
      bodyTimeout: UPLOAD_TIMEOUT_MS,
      signal: AbortSignal.timeout(UPLOAD_TIMEOUT_MS + 1_000),
    });
  } catch (err) {
    const e = err as { code?: string; name?: string };
    const timeout = err instanceof undiciErrors.HeadersTimeoutError || e?.name === 'TimeoutError';
    throw new SampleUploadError(timeout ? 'WhatsApp no respondió a tiempo' : `sin conexión con WhatsApp (${e?.code ?? 'error de red'})`);
  }
  const text = await res.body.text().catch(() => '');
  let json: Record<string, unknown> | null = null;
  try {
    json = text ? (JSON.parse(text) as Record<string, unknown>) : null;
  } catch {
    json = null;
  }
  if (res.statusCode >= 200 && res.statusCode < 300 && json) return json;
  const error = (json?.error ?? null) as { code?: number; message?: string; error_user_msg?: string } | null;
  const detail = error ? `${error.error_user_msg ?? error.message ?? `código ${error.code}`}` : `HTTP ${res.statusCode}`;
  throw new SampleUploadError(detail.slice(0, 300));
}
