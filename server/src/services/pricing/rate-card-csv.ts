import { PRICING_CATEGORIES, RATE_CARD_CSV_COLUMNS, RATE_CARD_MAX_ROWS, type RateCardLineError } from '@masivo/contract/pricing';
import { CSV_BOM, csvRow } from '../../lib/csv';
import { normalizeCategory, normalizeMarket, type CardRate } from './rate-lookup';

/**
 * The rate card as CSV, both ways. Spanish headers
 * `categoria,pais,vigente_desde,usd_por_mensaje,fuente,fecha_fuente`; a category is Meta's name
 * (marketing, utility, authentication; utilidad and autenticación are accepted); a country is
 * its ISO code (AR) or a region key (resto_latam); dates are YYYY-MM-DD (DD/MM/AAAA accepted);
 * an empty `usd_por_mensaje` is "sin tarifa" from that date. The decimal separator may be a
 * point or a comma, and the file may be separated by commas or semicolons (a spreadsheet in
 * Spanish saves with semicolons).
 */

const CATEGORY_ORDER = new Map(PRICING_CATEGORIES.map((c, i) => [c, i]));

/** Rates in a stable order: market, category, date. */
export function sortRates<T extends CardRate>(rates: readonly T[]): T[] {
  return [...rates].sort(
    (a, b) =>
      a.market.localeCompare(b.market) ||
      CATEGORY_ORDER.get(a.category)! - CATEGORY_ORDER.get(b.category)! ||
      a.effective_from.localeCompare(b.effective_from),
  );
}

/** The downloadable file: BOM for spreadsheets, every cell neutralised against formulas. */
export function rateCardToCsv(rates: readonly CardRate[]): string {
  let out = CSV_BOM + csvRow([...RATE_CARD_CSV_COLUMNS]);
  for (const r of sortRates(rates)) {
    out += csvRow([
      r.category,
      r.market,
      r.effective_from,
      r.usd_per_message === null ? '' : formatUsd(r.usd_per_message),
      r.source,
      r.source_date,
    ]);
  }
  return out;
}

/** Up to six decimals, no exponent, no trailing zeros: 0.0618, 0.0008. */
function formatUsd(v: number): string {
  return v.toFixed(6).replace(/\.?0+$/, '');
}

export type ParsedCard = { ok: true; rates: CardRate[] } | { ok: false; errors: RateCardLineError[] };

const MAX_ERRORS = 50;
const MAX_SOURCE = 500;
const MAX_USD = 10;
const REQUIRED = ['categoria', 'pais', 'vigente_desde', 'usd_por_mensaje'] as const;

interface Record_ {
  line: number;
  cells: string[];
}

/** RFC 4180 records with the physical line each starts on; an unclosed quote is reported. */
function records(text: string, delimiter: string): { records: Record_[]; error?: RateCardLineError } {
  const out: Record_[] = [];
  let cells: string[] = [];
  let cell = '';
  let quoted = false;
  let line = 1;
  let start = 1;
  let i = 0;
  const endRecord = () => {
    cells.push(cell);
    // A blank line (or one of bare separators) is skipped.
    if (cells.some((c) => c.trim() !== '')) out.push({ line: start, cells });
    cells = [];
    cell = '';
  };
  while (i < text.length) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          cell += '"';
          i += 2;
          continue;
        }
        quoted = false;
      } else {
        if (ch === '\n') line++;
        cell += ch;
      }
      i++;
      continue;
    }
    if (ch === '"' && cell === '') quoted = true;
    else if (ch === delimiter) {
      cells.push(cell);
      cell = '';
    } else if (ch === '\r' && text[i + 1] === '\n') {
      i++;
      continue;
    } else if (ch === '\n' || ch === '\r') {
      endRecord();
      line++;
      start = line;
    } else cell += ch;
    i++;
  }
  if (quoted) return { records: out, error: { line: start, message: `Línea ${start}: hay comillas sin cerrar` } };
  endRecord();
  return { records: out };
}

const headerKey = (h: string) =>
  h
    .trim()
    .toLowerCase()
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/\s+/g, '_');

/** Our own download neutralises cells starting with = + - @ with an apostrophe: read them back. */
const unneutralise = (v: string) => (/^'[=+\-@\t\r]/.test(v) ? v.slice(1) : v);

/** A calendar date as YYYY-MM-DD, from YYYY-MM-DD or DD/MM/AAAA; null if it is not a real day. */
function parseDay(raw: string): string | null {
  const v = raw.trim();
  let y: number, m: number, d: number;
  let match = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(v);
  if (match) [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])];
  else {
    match = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(v);
    if (!match) return null;
    [d, m, y] = [Number(match[1]), Number(match[2]), Number(match[3])];
  }
  if (y < 2000 || y > 2100) return null;
  const date = new Date(Date.UTC(y, m - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d) return null;
  return date.toISOString().slice(0, 10);
}

/** USD per message: ≥ 0, < 10, up to six decimals, point or comma; '' = null ("sin tarifa"). */
function parseUsd(raw: string): { value: number | null } | { error: string } {
  const v = raw.trim().replace(/^(US\$|\$|USD)\s*/i, '');
  if (v === '') return { value: null };
  if (!/^\d+([.,]\d+)?$/.test(v)) return { error: 'no es un número' };
  const [, decimals = ''] = v.split(/[.,]/);
  if (decimals.length > 6) return { error: 'tiene más de 6 decimales' };
  const n = Number(v.replace(',', '.'));
  if (!Number.isFinite(n)) return { error: 'no es un número' };
  if (n >= MAX_USD) return { error: `no puede ser de ${MAX_USD} USD o más por mensaje` };
  return { value: n };
}

/**
 * Reads an uploaded card whole. Either every row is valid and the card is returned, or the
 * errors are returned by line number (Spanish) and nothing is to be applied.
 */
export function parseRateCardCsv(input: string): ParsedCard {
  const text = input.replace(/^\uFEFF/, '');
  const firstLine = text.split(/\r?\n/, 1)[0] ?? '';
  const delimiter = firstLine.includes(';') && !firstLine.includes(',') ? ';' : ',';
  const parsed = records(text, delimiter);
  if (parsed.error) return { ok: false, errors: [parsed.error] };
  const [header, ...rows] = parsed.records;
  if (!header) return { ok: false, errors: [{ line: 1, message: 'Línea 1: el archivo está vacío' }] };

  const errors: RateCardLineError[] = [];
  const headerLine = header.line;
  const columns = header.cells.map(headerKey);
  const known = new Set<string>(RATE_CARD_CSV_COLUMNS);
  for (const c of columns) {
    if (!known.has(c)) errors.push({ line: headerLine, message: `Línea ${headerLine}: la columna «${c}» no se reconoce (se esperan ${RATE_CARD_CSV_COLUMNS.join(', ')})` });
  }
  for (const c of REQUIRED) {
    if (!columns.includes(c)) errors.push({ line: headerLine, message: `Línea ${headerLine}: falta la columna «${c}»` });
  }
  const seen = new Set<string>();
  for (const c of columns) {
    if (seen.has(c)) errors.push({ line: headerLine, message: `Línea ${headerLine}: la columna «${c}» está repetida` });
    seen.add(c);
  }
  if (errors.length) return { ok: false, errors };
  if (rows.length === 0) return { ok: false, errors: [{ line: headerLine, message: 'El archivo no tiene ninguna tarifa (solo el encabezado)' }] };
  if (rows.length > RATE_CARD_MAX_ROWS) {
    return { ok: false, errors: [{ line: rows[RATE_CARD_MAX_ROWS].line, message: `El archivo tiene ${rows.length} tarifas; el máximo es ${RATE_CARD_MAX_ROWS}` }] };
  }

  const col = (name: string) => columns.indexOf(name);
  const rates: CardRate[] = [];
  const firstLineOf = new Map<string, number>();
  for (const { line, cells } of rows) {
    if (errors.length >= MAX_ERRORS) break;
    const fail = (message: string) => errors.push({ line, message: `Línea ${line}: ${message}` });
    if (cells.length !== columns.length) {
      fail(`tiene ${cells.length} columnas y el encabezado ${columns.length}`);
      continue;
    }
    const get = (name: string) => {
      const i = col(name);
      return i < 0 ? '' : unneutralise(cells[i]).trim();
    };
    const before = errors.length;
    const categoryRaw = get('categoria');
    const category = normalizeCategory(categoryRaw);
    if (!category) fail(`la categoría «${categoryRaw}» no existe (marketing, utility o authentication)`);
    const marketRaw = get('pais');
    const market = normalizeMarket(marketRaw);
    if (!market) fail(marketRaw ? `el país «${marketRaw}» no existe (código ISO de 2 letras o resto_latam)` : 'falta el país');
    const dayRaw = get('vigente_desde');
    const effective = parseDay(dayRaw);
    if (!effective) fail(dayRaw ? `la fecha «${dayRaw}» de vigente_desde no es válida (AAAA-MM-DD)` : 'falta la fecha vigente_desde');
    const usd = parseUsd(get('usd_por_mensaje'));
    if ('error' in usd) fail(`el valor «${get('usd_por_mensaje')}» de usd_por_mensaje ${usd.error}`);
    const source = get('fuente');
    if (source.length > MAX_SOURCE) fail(`la fuente es demasiado larga (máximo ${MAX_SOURCE} caracteres)`);
    const sourceDayRaw = get('fecha_fuente');
    const sourceDay = sourceDayRaw ? parseDay(sourceDayRaw) : null;
    if (sourceDayRaw && !sourceDay) fail(`la fecha «${sourceDayRaw}» de fecha_fuente no es válida (AAAA-MM-DD)`);
    if (errors.length > before || !category || !market || !effective || 'error' in usd) continue;
    const key = `${category}|${market}|${effective}`;
    const earlier = firstLineOf.get(key);
    if (earlier !== undefined) {
      fail(`repite la tarifa de la línea ${earlier} (${category}, ${market}, ${effective})`);
      continue;
    }
    firstLineOf.set(key, line);
    rates.push({ category, market, effective_from: effective, usd_per_message: usd.value, source: source || null, source_date: sourceDay });
  }
  if (errors.length) return { ok: false, errors };
  return { ok: true, rates };
}
