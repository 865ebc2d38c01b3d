import { z } from 'zod';

/** Every failed API call answers with this body; `error` is shown to the operator as is. */
export const errorBodySchema = z.object({ error: z.string() });
export type ErrorBody = z.infer<typeof errorBodySchema>;

/** Path ids are positive integers; anything else is a 400, never a database error. */
export const idSchema = z.coerce.number().int().positive().max(2_147_483_647);
export const idParamsSchema = z.object({ id: idSchema });

export const okSchema = z.object({ success: z.literal(true), message: z.string().optional() });

/**
 * How a CSV download is written: `csv` (comma, decimal point) or `csv_es` for Excel in Spanish
 * (semicolon, decimal comma). Both start with a BOM and neutralise formulas.
 */
export const CSV_FORMATS = ['csv', 'csv_es'] as const;
export const csvFormatSchema = z.enum(CSV_FORMATS, { error: 'Formato no soportado' });
export type CsvFormat = z.infer<typeof csvFormatSchema>;

type WellFormedString = string & { isWellFormed?: () => boolean; toWellFormed?: () => string };

/**
 * False when the text holds a lone UTF-16 surrogate (half an emoji): PostgreSQL refuses to
 * store one in text or jsonb. Linear; uses the engine's own check where it has one.
 */
export function isWellFormedText(text: string): boolean {
  const s = text as WellFormedString;
  if (typeof s.isWellFormed === 'function') return s.isWellFormed();
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) return false;
      i++;
    } else if (c >= 0xdc00 && c <= 0xdfff) return false;
  }
  return true;
}

/** Replaces every lone surrogate with U+FFFD, for text we must keep but cannot refuse. */
export function toWellFormedText(text: string): string {
  const s = text as WellFormedString;
  if (typeof s.toWellFormed === 'function') return s.toWellFormed();
  return Array.from(text, (ch) => (isWellFormedText(ch) ? ch : '\uFFFD')).join('');
}

/**
 * Provider tokens travel in an HTTP header, so only visible ASCII is valid; anything else (a
 * pasted `€`, a space) would make the HTTP client throw for every request with it. Linear.
 */
export const ACCESS_TOKEN_PATTERN = /^[\x21-\x7e]+$/;
export const ACCESS_TOKEN_CHARSET_MESSAGE =
  'El token de acceso solo admite caracteres ASCII visibles (sin espacios, acentos ni símbolos como €)';
