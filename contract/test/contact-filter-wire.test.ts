import { describe, expect, it } from 'vitest';
import { contactFilterSchema, EMPTY_FILTER, filterToBody, filterToSearchParams, isFilterActive, type ContactFilterInput } from '../src/contact-filter';
import { contactFilterQuerySchema, exportBodySchema } from '../src/contacts';

const CASES: [string, ContactFilterInput][] = [
  ['empty', EMPTY_FILTER],
  ['search with spaces', { searchQuery: '  ana  ' }],
  ['tags AND', { tags: ['vip', 'año nuevo'], tagOperator: 'AND' }],
  ['excluded tags alone', { excludedTags: ['no_contactar', 'baja, "definitiva"'] }],
  ['included and excluded tags', { tags: ['vip'], tagOperator: 'OR', excludedTags: ['no_contactar'] }],
  ['fields of every mode', {
    customFieldFilters: {
      Plan: { mode: 'specific', values: ['Pro', 'Empresa'] },
      Ciudad: { mode: 'manual', manualValue: 'san' },
      Origen: { mode: 'exists' },
      Nota: { mode: 'notExists' },
      Vacío: { mode: 'none' },
    },
  }],
];

describe('contact-filter wire format: what the encoder sends, the decoder reads back', () => {
  it.each(CASES)('%s: query string → the same filter as the request body', (_name, f) => {
    const decoded = contactFilterQuerySchema.parse(Object.fromEntries(filterToSearchParams(f)));
    const body = filterToBody(f);
    expect({ ...EMPTY_FILTER, ...decoded }).toEqual({ ...EMPTY_FILTER, ...body });
  });

  it('drops filters that narrow nothing, so they do not vary cache keys', () => {
    const params = filterToSearchParams({ tags: [], tagOperator: 'AND', customFieldFilters: { Plan: { mode: 'none' }, Ciudad: { mode: 'manual', manualValue: ' ' } } });
    expect(params.toString()).toBe('');
  });

  it('sends the excluded tags as JSON text, and no empty list', () => {
    expect(filterToSearchParams({ excludedTags: ['no_contactar'] }).toString()).toBe('excludedTags=%5B%22no_contactar%22%5D');
    expect(filterToSearchParams({ excludedTags: [] }).toString()).toBe('');
    expect(filterToBody({ excludedTags: ['no_contactar'] }).excludedTags).toEqual(['no_contactar']);
    expect('excludedTags' in filterToBody({ tags: ['vip'] })).toBe(false);
    expect(contactFilterQuerySchema.parse({ excludedTags: '["no_contactar"]' }).excludedTags).toEqual(['no_contactar']);
  });

  it('reads a filter saved before excluded tags existed as excluding nothing', () => {
    expect(contactFilterSchema.parse({ searchQuery: '', tags: ['vip'], tagOperator: 'OR', customFieldFilters: {} }).excludedTags).toEqual([]);
  });

  it('keeps the route parameters beside the filter', () => {
    expect(filterToSearchParams({ tags: ['vip'] }, { account_id: 7, limit: undefined }).toString()).toBe('tags=%5B%22vip%22%5D&tagOperator=OR&account_id=7');
  });
});

describe('export body (spec: POST /contacts/{accountId}/export)', () => {
  const filters = filterToBody({ tags: ['vip'], tagOperator: 'AND', customFieldFilters: { Plan: { mode: 'exists' } } });

  it('accepts the filters nested as {filters, format}, as the spec writes it', () => {
    expect(exportBodySchema.parse({ filters, format: 'csv' })).toMatchObject({ ...filters, format: 'csv' });
  });

  it('accepts the filters flat, as before', () => {
    expect(exportBodySchema.parse({ ...filters, format: 'csv' })).toMatchObject({ ...filters, format: 'csv' });
  });
});

describe('excluded tags refusals, in Spanish', () => {
  const refusal = (excludedTags: unknown) => {
    const r = contactFilterSchema.safeParse({ excludedTags });
    return r.success ? null : r.error.issues[0].message;
  };

  it('refuses what is not a list of short texts, and more values than the filter budget', () => {
    expect(refusal('no_contactar')).toBe('Las etiquetas excluidas deben ser una lista');
    expect(refusal([7])).toBe('Cada etiqueta debe ser un texto');
    expect(refusal(['x'.repeat(201)])).toBe('Etiqueta demasiado larga');
    expect(refusal(['x'.repeat(200)])).toBeNull();
    expect(refusal(Array.from({ length: 2_001 }, (_, i) => `t${i}`))).toMatch(/^Demasiados valores en el filtro/);
    const half = Array.from({ length: 1_001 }, (_, i) => `t${i}`);
    expect(contactFilterSchema.safeParse({ tags: half, excludedTags: half }).success).toBe(false);
  });

  it('a filter with only excluded tags is active', () => {
    expect(isFilterActive({ excludedTags: ['no_contactar'] })).toBe(true);
    expect(isFilterActive({ excludedTags: [] })).toBe(false);
  });
});

describe('export body refusals', () => {
  it('refuses the filters given both nested and flat, in Spanish', () => {
    const r = exportBodySchema.safeParse({ filters: { tags: ['vip'] }, searchQuery: 'ana' });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0].message).toMatch(/^Envía los filtros/);
  });

  it('refuses excluded tags both nested and flat', () => {
    const r = exportBodySchema.safeParse({ filters: { tags: ['vip'] }, excludedTags: ['no_contactar'] });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0].message).toMatch(/^Envía los filtros/);
  });

  it('bounds the nested filter like the flat one', () => {
    const tags = Array.from({ length: 2_001 }, (_, i) => `t${i}`);
    expect(exportBodySchema.safeParse({ filters: { tags } }).success).toBe(false);
  });
});
