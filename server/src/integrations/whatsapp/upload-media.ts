import { errors as undiciErrors, FormData, request } from 'undici';
import { ACCESS_TOKEN_PATTERN } from '@masivo/contract/common';

/**
 * `POST /{phone-number-id}/media` (multipart, as Meta's reference shows it): the media id it
 * returns is sent in every message of a campaign, so Meta downloads the file once instead of
 * once per recipient.
 */
const UPLOAD_TIMEOUT_MS = 60_000;

export interface MediaUpload {
  graphUrl: string;
  phoneNumberId: string;
  accessToken: string;
  bytes: Buffer;
  mime: string;
  filename: string;
}

export class MediaUploadError extends Error {}

export async function uploadMedia(u: MediaUpload): Promise<string> {
  if (!ACCESS_TOKEN_PATTERN.test(u.accessToken)) throw new MediaUploadError('el token de acceso guardado no es válido');
  const form = new FormData();
  form.set('messaging_product', 'whatsapp');
  form.set('type', u.mime);
  form.set('file', new Blob([new Uint8Array(u.bytes)], { type: u.mime }), u.filename);
  let res;
  try {
    res = await request(`${u.graphUrl.replace(/\/+$/, '')}/${encodeURIComponent(u.phoneNumberId)}/media`, {
      method: 'POST',
      headers: { authorization: `Bearer ${u.accessToken}`, accept: 'application/json' },
      body: form,
      headersTimeout: UPLOAD_TIMEOUT_MS,
      bodyTimeout: UPLOAD_TIMEOUT_MS,
      signal: AbortSignal.timeout(UPLOAD_TIMEOUT_MS + 1_000),
    });
  } catch (err) {
    const e = err as { code?: string; name?: string };
    const timeout = err instanceof undiciErrors.HeadersTimeoutError || e?.name === 'TimeoutError';
    throw new MediaUploadError(timeout ? 'WhatsApp no respondió a tiempo' : `sin conexión con WhatsApp (${e?.code ?? 'error de red'})`);
  }
  const text = await res.body.text().catch(() => '');
  let json: { id?: unknown; error?: { code?: number; message?: string; error_data?: { details?: string } } } | null = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (res.statusCode >= 200 && res.statusCode < 300 && typeof json?.id === 'string') return json.id;
  const error = json?.error;
  const detail = error ? `${error.message ?? `código ${error.code}`}${error.error_data?.details ? `: ${error.error_data.details}` : ''}` : `HTTP ${res.statusCode}`;
  throw new MediaUploadError(detail.slice(0, 300));
}
