import { MEDIA_RULES, type MediaHeaderFormat } from '@masivo/contract/variables';
import { MediaFetchError, safeFetchMedia } from '../../integrations/media/safe-fetch';
import { badRequest } from '../../lib/errors';

/**
 * The check a header media link passes before a mapping is saved: https, reachable through
 * the guarded fetcher, a content type and size Meta accepts for the header's format. Only
 * headers are read here; the campaign's upload reads the body under the same limits.
 */
export async function checkMediaLink(link: string, format: MediaHeaderFormat, slot: string, allowPrivate: boolean): Promise<void> {
  const rules = MEDIA_RULES[format];
  const fail = (why: string) => badRequest(`${slot}: ${why}`);
  if (!/^https:\/\//i.test(link)) throw fail('el enlace del archivo debe empezar con https://');
  let fetched;
  try {
    fetched = await safeFetchMedia(link, { allowPrivate, maxBytes: rules.maxBytes, readBody: false });
  } catch (err) {
    if (err instanceof MediaFetchError) throw fail(lowerFirst(err.message));
    throw err;
  }
  if (!rules.types.includes(fetched.contentType)) {
    throw fail(`el enlace entrega ${fetched.contentType || 'un tipo de archivo desconocido'} y el encabezado espera ${rules.label}`);
  }
  if (fetched.size > rules.maxBytes) {
    throw fail(`el archivo pesa ${(fetched.size / 1024 / 1024).toFixed(1)} MB y Meta admite ${rules.label}`);
  }
}

const lowerFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);
