import type { CsvFormat } from '@masivo/contract/common';

/** UTF-8 byte order mark: without it Excel reads accents as mojibake. */
export const CSV_BOM = '\uFEFF';

/** A cell's value: text as it is, or a number written the way the format's spreadsheet reads numbers. */
export type CsvValue = string | number | null | undefined;

/**
 * The two CSV dialects: `csv` (RFC 4180, comma, decimal point) and `csv_es`, what Excel in a
 * Spanish locale opens by double click (semicolon separator, decimal comma).
 */
const DIALECTS: Record<CsvFormat, { separator: string; decimal: string; quoteIf: RegExp }> = {
  csv: { separator: ',', decimal: '.', quoteIf: /[",\r\n]/ },
  csv_es: { separator: ';', decimal: ',', quoteIf: /[";\r\n]/ },
};

/**
 * One CSV cell. A text a spreadsheet would run as a formula (starting with = + - @, or a tab /
 * carriage return) gets a leading apostrophe so it stays text. Numbers are ours, never typed by
 * anyone, so they are written bare with the format's decimal mark (a negative stays a number).
 */
export function csvCell(value: CsvValue, format: CsvFormat = 'csv'): string {
  const dialect = DIALECTS[format];
  if (typeof value === 'number') return Number.isFinite(value) ? String(value).replace('.', dialect.decimal) : '';
  let v = value ?? '';
  if (/^[=+\-@\t\r]/.test(v)) v = `'${v}`;
  return dialect.quoteIf.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

export function csvRow(values: CsvValue[], format: CsvFormat = 'csv'): string {
  return values.map((v) => csvCell(v, format)).join(DIALECTS[format].separator) + '\r\n';
}
