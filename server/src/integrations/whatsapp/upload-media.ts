import { ACCESS_TOKEN_PATTERN } from '@masivo/contract/common';
import { postUpload } from './upload-request';

/**
 * `POST /{phone-number-id}/media` (multipart, as Meta's reference shows it): the media id it
 * returns is sent in every message of a campaign, so Meta downloads the file once instead of
 * once per recipient.
 */
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
  // The runtime's own FormData and Blob: postUpload encodes them with the runtime's Request.
  const form = new FormData();
  form.set('messaging_product', 'whatsapp');
  form.set('type', u.mime);
  form.set('file', new Blob([new Uint8Array(u.bytes)], { type: u.mime }), u.filename);
  const json = await postUpload(
    `${u.graphUrl.replace(/\/+$/, '')}/${encodeURIComponent(u.phoneNumberId)}/media`,
    { authorization: `Bearer ${u.accessToken}` },
    form,
    (reason) => new MediaUploadError(reason),
  );
  if (typeof json.id === 'string') return json.id;
  throw new MediaUploadError('WhatsApp no devolvió el identificador del archivo');
}
