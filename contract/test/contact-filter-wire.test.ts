import { describe, expect, it } from 'vitest';
import { EMPTY_FILTER, filterToBody, filterToSearchParams, type ContactFilterInput } from '../src/contact-filter';
import { contactFilterQuerySchema, exportBodySchema } from '../src/contacts';

const CASES: [string, ContactFilterInput][] = [
  ['empty', EMPTY_FILTER],
  ['search with spaces', { searchQuery: '  ana  ' }],
  ['tags AND', { tags: ['vip', 'año nuevo'], tagOperator: 'AND' }],
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
    expect({ ...EMPTY_FILTER, ...decoded }).toEqual(body);
  });

  it('drops filters that narrow nothing, so they do not vary cache keys', () => {
    const params = filterToSearchParams({ tags: [], tagOperator: 'AND', customFieldFilters: { Plan: { mode: 'none' }, Ciudad: { mode: 'manual', manualValue: ' ' } } });
    expect(params.toString()).toBe('');
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

describe('export body refusals', () => {
  it('refuses the filters given both nested and flat, in Spanish', () => {
    const r = exportBodySchema.safeParse({ filters: { tags: ['vip'] }, searchQuery: 'ana' });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0].message).toMatch(/^Envía los filtros/);
  });

  it('bounds the nested filter like the flat one', () => {
    const tags = Array.from({ length: 2_001 }, (_, i) => `t${i}`);
    expect(exportBodySchema.safeParse({ filters: { tags } }).success).toBe(false);
  });
});
