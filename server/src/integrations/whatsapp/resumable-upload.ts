import { ACCESS_TOKEN_PATTERN } from '@masivo/contract/common';
import { postUpload } from './upload-request';

/**
 * Meta's Resumable Upload API, used for a media header's sample when a template is created:
 * `POST /{app-id}/uploads` opens a session for the file's length and type, then
 * `POST /{upload-id}` with `Authorization: OAuth {token}` and `file_offset: 0` carries the
 * bytes and returns the handle that goes into the header's `example.header_handle`.
 */
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

const post = (url: string, headers: Record<string, string>, body?: Buffer) =>
  postUpload(url, headers, body, (reason) => new SampleUploadError(reason));
