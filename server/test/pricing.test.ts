import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RATE_CARD_MAX_ROWS } from '@masivo/contract/pricing';
import { rowsOf } from '../src/db/sql';
import { DEFAULT_RATE_CARD, DEMO_MARKETS, RATE_CARD_REGIONS } from '../src/services/pricing/default-rate-card';
import { countryOfPhone, estimateCost } from '../src/services/pricing/estimate-cost';
import { normalizeMarket } from '../src/services/pricing/rate-lookup';
import { createTestApp, type TestApp } from './helpers/app';

/** Cost up front: the rate card, its CSV both ways, and the estimate built on it. */
let t: TestApp;
type User = Awaited<ReturnType<TestApp['signUp']>>;
let a: User;
let b: User;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.signUp();
  b = await t.signUp();
});
afterAll(() => t?.close());

const HEADER = 'categoria,pais,vigente_desde,usd_por_mensaje,fuente,fecha_fuente';
const getCard = (u: User) => t.app.inject({ method: 'GET', url: '/api/pricing', headers: u.headers });
const getCsv = (u: User) => t.app.inject({ method: 'GET', url: '/api/pricing/csv', headers: u.headers });
const putCsv = (u: User, csv: string) => t.app.inject({ method: 'PUT', url: '/api/pricing/csv', headers: u.headers, payload: { csv } });
const storedRows = (u: User) =>
  rowsOf(t.ctx.db, sql`select category, market, to_char(effective_from, 'YYYY-MM-DD') as d, usd_per_message::text as usd from rate_card_rates where user_id = ${u.userId} order by id`);
const estimate = (u: User, category: string, at: string, recipientsByCountry: Array<{ country: string | null; count: number }>) =>
  estimateCost(t.ctx.db, u.userId, { category, at: new Date(at), recipientsByCountry });

describe('the shipped rate card', () => {
  it('cites a source page and a date on every row, with valid markets and no duplicate', () => {
    expect(DEFAULT_RATE_CARD.length).toBeGreaterThan(0);
    const keys = new Set<string>();
    for (const r of DEFAULT_RATE_CARD) {
      expect(r.source, JSON.stringify(r)).toMatch(/^https:\/\/\S+/);
      expect(r.source_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(Number.isNaN(Date.parse(r.source_date))).toBe(false);
      expect(r.effective_from).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(normalizeMarket(r.market)).toBe(r.market);
      if (r.usd_per_message !== null) expect(r.usd_per_message).toBeGreaterThan(0);
      const key = `${r.category}|${r.market}|${r.effective_from}`;
      expect(keys.has(key), key).toBe(false);
      keys.add(key);
    }
    for (const region of RATE_CARD_REGIONS) for (const c of region.countries) expect(normalizeMarket(c)).toBe(c);
  });

  it('is what a new tenant sees, with every demo market listed and "sin tarifa" where no rate is sourced', async () => {
    const res = await getCard(b);
    expect(res.statusCode).toBe(200);
    const card = res.json();
    expect(card).toMatchObject({ currency: 'USD', is_default: true, updated_at: null });
    expect(card.rates).toHaveLength(DEFAULT_RATE_CARD.length);
    expect(card.markets.map((m: { market: string }) => m.market)).toEqual(expect.arrayContaining([...DEMO_MARKETS]));
    const ar = card.markets.find((m: { market: string }) => m.market === 'AR');
    expect(ar.label).toBe('Argentina');
    expect(ar.current.marketing).toMatchObject({ usd_per_message: 0.0618, effective_from: '2025-07-01' });
    expect(ar.current.marketing.source).toMatch(/^https:/);
    // Meta changed AR utility on 1 Oct 2025 and the new figure is not sourced: no stale number.
    expect(ar.current.utility).toMatchObject({ usd_per_message: null, effective_from: '2025-10-01' });
    const mx = card.markets.find((m: { market: string }) => m.market === 'MX');
    expect(mx.current).toEqual({ marketing: null, utility: null, authentication: null });
    expect(card.markets.find((m: { market: string }) => m.market === 'resto_latam')).toMatchObject({ is_region: true, label: 'Resto de América Latina' });
  });
});

describe('CSV download and upload', () => {
  it('downloads the card with a BOM and Spanish headers, and the same file uploads back unchanged', async () => {
    const first = await getCsv(a);
    expect(first.statusCode).toBe(200);
    expect(first.headers['content-type']).toMatch(/^text\/csv/);
    expect(first.headers['content-disposition']).toMatch(/attachment; filename="tarifas-\d{4}-\d{2}-\d{2}\.csv"/);
    expect(first.body.startsWith('\uFEFF' + HEADER + '\r\n')).toBe(true);
    expect(first.body).toContain('marketing,AR,2025-07-01,0.0618,');
    expect(first.body).toContain('utility,AR,2025-10-01,,');

    const up = await putCsv(a, first.body);
    expect(up.statusCode, up.body).toBe(200);
    expect(up.json().is_default).toBe(false);
    expect(up.json().updated_at).toMatch(/Z$/);
    expect(await storedRows(a)).toHaveLength(DEFAULT_RATE_CARD.length);
    const again = await getCsv(a);
    expect(again.body).toBe(first.body);
    // B never uploaded: still the shipped card.
    expect((await getCard(b)).json().is_default).toBe(true);
  });

  it('reads a spreadsheet in Spanish: semicolons, decimal commas, DD/MM/AAAA, Spanish category names, no source', async () => {
    const csv = ['Categoría;País;Vigente_desde;USD_por_mensaje', 'utilidad;mx;01/01/2026;0,0085', 'Autenticación;resto_latam;2026-01-01;0.0113', 'marketing;US;2026-01-01;'].join('\r\n');
    const res = await putCsv(a, csv);
    expect(res.statusCode, res.body).toBe(200);
    const rates = res.json().rates;
    expect(rates).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ category: 'utility', market: 'MX', effective_from: '2026-01-01', usd_per_message: 0.0085, source: null, source_date: null }),
        expect.objectContaining({ category: 'authentication', market: 'resto_latam', usd_per_message: 0.0113 }),
        expect.objectContaining({ category: 'marketing', market: 'US', usd_per_message: null }),
      ]),
    );
    expect(rates).toHaveLength(3);
  });

  it('refuses a file with bad rows, names each by line in Spanish, and applies nothing', async () => {
    const good = [HEADER, 'marketing,AR,2026-01-01,0.05,https://ejemplo.test/tarifas,2026-01-01'].join('\n');
    expect((await putCsv(a, good)).statusCode).toBe(200);
    const before = await storedRows(a);
    const updatedBefore = (await getCard(a)).json().updated_at;

    const bad = [
      HEADER,
      'marketing,MX,2026-01-01,0.03,,', // 2: fine
      'marketing,XX,2026-01-01,0.03,,', // 3
      'promocion,AR,2026-01-01,0.03,,', // 4
      '',
      'utility,CL,2026-02-30,0.02,,', // 6
      'utility,CL,2026-03-01,-0.02,,', // 7
      'utility,PE,2026-03-01,abc,,', // 8
      'marketing,MX,2026-01-01,0.04,,', // 9: repeats line 2
      'utility,BR,2026-01-01,0.01', // 10: 4 columns
      'authentication,BR,2026-01-01,0.0000001,,', // 11: 7 decimals
    ].join('\n');
    const res = await putCsv(a, bad);
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.error).toBe('El archivo tiene 8 errores; no se aplicó ningún cambio.');
    expect(body.errors.map((e: { line: number }) => e.line)).toEqual([3, 4, 6, 7, 8, 9, 10, 11]);
    expect(body.errors[0].message).toBe('Línea 3: el país «XX» no existe (código ISO de 2 letras o resto_latam)');
    expect(body.errors[1].message).toMatch(/^Línea 4: la categoría «promocion» no existe/);
    expect(body.errors[2].message).toMatch(/^Línea 6: la fecha «2026-02-30» de vigente_desde no es válida/);
    expect(body.errors[3].message).toMatch(/^Línea 7: el valor «-0.02» de usd_por_mensaje no es un número/);
    expect(body.errors[5].message).toBe('Línea 9: repite la tarifa de la línea 2 (marketing, MX, 2026-01-01)');
    expect(body.errors[6].message).toBe('Línea 10: tiene 4 columnas y el encabezado 6');
    expect(body.errors[7].message).toMatch(/^Línea 11: .*más de 6 decimales/);
    expect(await storedRows(a)).toEqual(before);
    expect((await getCard(a)).json().updated_at).toBe(updatedBefore);
  });

  it('refuses a bad header, an unclosed quote, a header-only file, too many rows and too many bytes', async () => {
    const header = await putCsv(a, 'categoria,pais,precio\nmarketing,AR,0.1');
    expect(header.statusCode).toBe(400);
    expect(header.json().errors.map((e: { message: string }) => e.message)).toEqual([
      'Línea 1: la columna «precio» no se reconoce (se esperan categoria, pais, vigente_desde, usd_por_mensaje, fuente, fecha_fuente)',
      'Línea 1: falta la columna «vigente_desde»',
      'Línea 1: falta la columna «usd_por_mensaje»',
    ]);
    const quote = await putCsv(a, `${HEADER}\nmarketing,AR,2026-01-01,0.1,"sin cerrar,2026-01-01\nutility,AR,2026-01-01,0.1,,`);
    expect(quote.json().errors).toEqual([{ line: 2, message: 'Línea 2: hay comillas sin cerrar' }]);
    expect((await putCsv(a, HEADER)).json().errors[0].message).toMatch(/no tiene ninguna tarifa/);
    const many = [HEADER, ...Array.from({ length: RATE_CARD_MAX_ROWS + 1 }, (_, i) => `marketing,AR,${2000 + Math.floor(i / 365)}-01-01,0.01,,`)].join('\n');
    const tooMany = await putCsv(a, many);
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().errors[0].message).toBe(`El archivo tiene ${RATE_CARD_MAX_ROWS + 1} tarifas; el máximo es ${RATE_CARD_MAX_ROWS}`);
    const huge = await putCsv(a, HEADER + '\n' + 'x'.repeat(600 * 1024));
    expect(huge.statusCode).toBe(400);
    expect(huge.json().error).toMatch(/demasiado grande/);
  });

  it('reads back a cell its own download neutralised against formulas', async () => {
    const res = await putCsv(a, `${HEADER}\nmarketing,AR,2026-01-01,0.05,"'=fuente interna",2026-01-01`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().rates[0].source).toBe('=fuente interna');
    expect((await getCsv(a)).body).toContain(`,'=fuente interna,`);
  });
});

describe('estimateCost', () => {
  it('uses the rate in force on the day of sending', async () => {
    const csv = [
      HEADER,
      'marketing,AR,2026-01-01,0.05,,',
      'marketing,AR,2026-07-01,0.06,,',
      'marketing,AR,2026-10-01,,,', // Meta changed it; the new figure is unknown
    ].join('\n');
    expect((await putCsv(a, csv)).statusCode).toBe(200);
    const at = async (when: string) => (await estimate(a, 'marketing', when, [{ country: 'AR', count: 10 }])).byCountry[0].rate;
    expect(await at('2025-12-31T23:59:59Z')).toBeNull();
    expect(await at('2026-01-01T00:00:00Z')).toBe(0.05);
    expect(await at('2026-06-30T23:59:59Z')).toBe(0.05);
    expect(await at('2026-07-01T00:00:00Z')).toBe(0.06);
    expect(await at('2026-09-30T12:00:00Z')).toBe(0.06);
    expect(await at('2026-10-01T00:00:00Z')).toBeNull();
  });

  it('falls back to the region only for countries of that region, and a country rate beats it', async () => {
    const csv = [HEADER, 'marketing,resto_latam,2026-01-01,0.074,,', 'marketing,UY,2026-06-01,0.08,,'].join('\n');
    expect((await putCsv(a, csv)).statusCode).toBe(200);
    const res = await estimate(a, 'marketing', '2026-03-01T12:00:00Z', [
      { country: 'UY', count: 2 },
      { country: 'BO', count: 1 },
      { country: 'MX', count: 5 }, // its own market on Meta's card, not "rest of Latin America"
    ]);
    expect(res.byCountry.map((r) => r.rate)).toEqual([0.074, 0.074, null]);
    const later = await estimate(a, 'marketing', '2026-06-01T00:00:00Z', [{ country: 'UY', count: 2 }]);
    expect(later.byCountry[0].rate).toBe(0.08);
  });

  it('adds up priced recipients exactly and counts the "sin tarifa" ones apart', async () => {
    const csv = [HEADER, 'marketing,AR,2026-01-01,0.0618,,', 'marketing,CO,2026-01-01,0.0125,,', 'utility,AR,2026-01-01,0.026,,'].join('\n');
    expect((await putCsv(a, csv)).statusCode).toBe(200);
    const res = await estimate(a, 'MARKETING', '2026-11-24T10:00:00Z', [
      { country: 'AR', count: 3 },
      { country: 'co', count: 7 },
      { country: 'PE', count: 4 },
      { country: null, count: 2 },
    ]);
    expect(res).toEqual({
      currency: 'USD',
      total: 0.2729, // 3 × 0.0618 + 7 × 0.0125
      priced: 10,
      unpriced: 6,
      byCountry: [
        { country: 'AR', count: 3, rate: 0.0618 },
        { country: 'co', count: 7, rate: 0.0125 },
        { country: 'PE', count: 4, rate: null },
        { country: null, count: 2, rate: null },
      ],
    });
    const utility = await estimate(a, 'utility', '2026-11-24T10:00:00Z', [{ country: 'AR', count: 1_000_000 }]);
    expect(utility.total).toBe(26_000);
    const unknown = await estimate(a, 'service', '2026-11-24T10:00:00Z', [{ country: 'AR', count: 5 }]);
    expect(unknown).toMatchObject({ total: 0, priced: 0, unpriced: 5 });
  });

  it('reads each tenant’s own card only', async () => {
    const csv = [HEADER, 'marketing,AR,2026-01-01,0.5,,'].join('\n');
    expect((await putCsv(a, csv)).statusCode).toBe(200);
    const input: Array<{ country: string; count: number }> = [{ country: 'AR', count: 1 }];
    expect((await estimate(a, 'marketing', '2026-11-24T00:00:00Z', input)).total).toBe(0.5);
    // B follows the shipped card.
    expect((await estimate(b, 'marketing', '2026-11-24T00:00:00Z', input)).total).toBe(0.0618);
    // B's reset does not touch A; A's reset brings A back to the shipped card.
    expect((await t.app.inject({ method: 'DELETE', url: '/api/pricing', headers: b.headers })).statusCode).toBe(200);
    expect((await getCard(a)).json().is_default).toBe(false);
    const reset = await t.app.inject({ method: 'DELETE', url: '/api/pricing', headers: a.headers });
    expect(reset.json()).toMatchObject({ success: true });
    expect((await getCard(a)).json().is_default).toBe(true);
    expect(await storedRows(a)).toEqual([]);
    expect((await estimate(a, 'marketing', '2026-11-24T00:00:00Z', input)).total).toBe(0.0618);
  });

  it('requires a session for every pricing route', async () => {
    for (const [method, url] of [['GET', '/api/pricing'], ['GET', '/api/pricing/csv'], ['PUT', '/api/pricing/csv'], ['DELETE', '/api/pricing']] as const) {
      const res = await t.app.inject({ method, url, ...(method === 'PUT' ? { payload: { csv: HEADER } } : {}) });
      expect(res.statusCode, `${method} ${url}`).toBe(401);
    }
  });
});

describe('countryOfPhone', () => {
  it('names the country of an E.164 phone, and nothing for a BSUID or garbage', () => {
    expect(countryOfPhone('+5491112345678')).toBe('AR');
    expect(countryOfPhone('+525512345678')).toBe('MX');
    expect(countryOfPhone('+573001234567')).toBe('CO');
    expect(countryOfPhone('+12025550123')).toBe('US');
    expect(countryOfPhone('+18095550123')).toBe('DO');
    expect(countryOfPhone('US.13491208655302741918')).toBeNull();
    expect(countryOfPhone('+999')).toBeNull();
    expect(countryOfPhone('')).toBeNull();
  });
});
