/** UTF-8 byte order mark: without it Excel reads accents as mojibake. */
export const CSV_BOM = '\uFEFF';

/**
 * One CSV cell (RFC 4180). A cell a spreadsheet would run as a formula (starting with
 * = + - @, or a tab / carriage return) gets a leading apostrophe so it stays text.
 */
export function csvCell(value: string | null | undefined): string {
  let v = value ?? '';
  if (/^[=+\-@\t\r]/.test(v)) v = `'${v}`;
  return /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

export function csvRow(values: Array<string | null | undefined>): string {
  return values.map(csvCell).join(',') + '\r\n';
}
