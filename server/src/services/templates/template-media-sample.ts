import { MEDIA_SAMPLE_MAX_BYTES, MEDIA_SAMPLE_TYPES, type mediaSampleQuerySchema } from '@masivo/contract/templates';
import { MEDIA_RULES } from '@masivo/contract/variables';
import type { z } from 'zod';
import type { AppContext } from '../../context';
import { SampleUploadError, uploadTemplateSample } from '../../integrations/whatsapp/resumable-upload';
import { badGateway, badRequest } from '../../lib/errors';
import { createWhatsAppAccountService } from '../whatsapp-accounts/whatsapp-account-service';

type Query = z.output<typeof mediaSampleQuerySchema>;
type Format = Query['format'];

const EXTENSIONS: Record<string, string> = { 'image/jpeg': 'jpg', 'image/png': 'png', 'video/mp4': 'mp4', 'video/3gpp': '3gp', 'application/pdf': 'pdf' };

/** The file's first bytes, so a renamed file is refused here and not by Meta's reviewer. */
function contentMatches(mime: string, b: Buffer): boolean {
  switch (mime) {
    case 'image/png':
      return b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    case 'image/jpeg':
      return b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff;
    case 'application/pdf':
      return b.subarray(0, 5).toString('latin1') === '%PDF-';
    default: // mp4 and 3gpp are ISO media files: a `ftyp` box comes first.
      return b.subarray(4, 8).toString('latin1') === 'ftyp';
  }
}

/** Checks a header sample against Meta's rules and uploads it; returns the `header_handle`. */
export async function uploadMediaSample(ctx: AppContext, userId: number, query: Query, contentType: string | undefined, body: unknown) {
  const account = await createWhatsAppAccountService(ctx).owned(userId, query.whatsapp_account_id);
  const format: Format = query.format;
  const mime = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const rule = MEDIA_RULES[format];
  if (!MEDIA_SAMPLE_TYPES[format].includes(mime)) throw badRequest(`El archivo de ejemplo debe ser ${rule.label}; se recibió ${mime || 'un tipo desconocido'}`);
  if (!Buffer.isBuffer(body) || body.length === 0) throw badRequest('El archivo de ejemplo está vacío');
  const max = Math.min(rule.maxBytes, MEDIA_SAMPLE_MAX_BYTES);
  if (body.length > max) throw badRequest(`El archivo de ejemplo supera el límite de ${Math.round(max / (1024 * 1024))} MB`);
  if (!contentMatches(mime, body)) throw badRequest(`El contenido del archivo no corresponde a ${rule.label}`);
  const appId = ctx.config.WHATSAPP_APP_ID;
  if (!appId) throw badRequest('Falta configurar WHATSAPP_APP_ID (el id de la app de Meta) para subir archivos de ejemplo');
  try {
    const handle = await uploadTemplateSample({
      graphUrl: ctx.config.WHATSAPP_GRAPH_URL,
      appId,
      accessToken: ctx.secrets.open(account.accessTokenEnc),
      bytes: body,
      mime,
      fileName: `muestra.${EXTENSIONS[mime] ?? 'bin'}`,
    });
    return { handle };
  } catch (err) {
    if (err instanceof SampleUploadError) throw badGateway(`No se pudo subir el archivo de ejemplo a WhatsApp: ${err.message}`);
    throw err;
  }
}
