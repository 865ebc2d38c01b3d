import { describe, expect, it } from 'vitest';
import { contactAt, FIELD_NAMES, generateContacts, hashSeed, mulberry32, tagsForSeed } from '../src/data/index';

describe('data generator', () => {
  it('is deterministic per (seed, index) and independent of order', () => {
    const direct = contactAt(7, 12_345);
    const viaGenerator = [...generateContacts(7, 12_346)][12_345];
    expect(viaGenerator).toEqual(direct);
    expect(contactAt(7, 12_345)).toEqual(direct);
    expect(contactAt(8, 12_345)).not.toEqual(direct);
  });

  it('serves far indexes without generating the ones before', () => {
    const start = performance.now();
    for (let i = 0; i < 1000; i++) contactAt(1, 999_000 + i);
    expect(performance.now() - start).toBeLessThan(200);
  });

  it('exports a small seeded PRNG', () => {
    const a = mulberry32(hashSeed(1, 2));
    const b = mulberry32(hashSeed(1, 2));
    const xs = [a(), a(), a()];
    expect([b(), b(), b()]).toEqual(xs);
    for (const x of xs) expect(x >= 0 && x < 1).toBe(true);
    expect(hashSeed(1, 2)).not.toBe(hashSeed(1, 3));
  });

  it('uses 20 to 50 distinct tags per seed, 0 to 4 per contact', () => {
    for (let seed = 1; seed <= 30; seed++) {
      const tags = tagsForSeed(seed);
      expect(new Set(tags).size).toBe(tags.length);
      expect(tags.length).toBeGreaterThanOrEqual(20);
      expect(tags.length).toBeLessThanOrEqual(50);
    }
    const seen = new Set<string>();
    for (const c of generateContacts(3, 5000)) {
      expect(c.tags.length).toBeLessThanOrEqual(4);
      for (const t of c.tags) seen.add(t);
    }
    expect(seen.size).toBeGreaterThanOrEqual(20);
    expect([...seen].every((t) => tagsForSeed(3).includes(t))).toBe(true);
  });

  it('has the documented mix of phones, emails and custom fields', () => {
    const n = 20_000;
    const kinds = { valid: 0, invalid: 0, duplicate: 0, none: 0 };
    const e164s = new Map<string, number>();
    let international = 0;
    let secondPhone = 0;
    let email = 0;
    let bare = 0;
    let accented = 0;
    const empty = Object.fromEntries(FIELD_NAMES.map((f) => [f, 0])) as Record<string, number>;
    const countries = new Set<string>();
    for (const c of generateContacts(1, n)) {
      kinds[c.phoneKind]++;
      countries.add(c.country);
      if (c.e164) e164s.set(c.e164, (e164s.get(c.e164) ?? 0) + 1);
      if (c.phones[0]?.value.startsWith('+')) international++;
      if (c.phones.length > 1) secondPhone++;
      if (c.email) email++;
      if (/[áéíóúñÁÉÍÓÚÑü]/.test(c.name)) accented++;
      for (const f of FIELD_NAMES) if (c.custom[f] === null) empty[f]++;
      if (c.phones.length === 0 && !c.email && FIELD_NAMES.every((f) => c.custom[f] === null)) bare++;
      if (c.phoneKind === 'invalid') expect(c.e164).toBeNull();
      if (c.phoneKind === 'none') expect(c.phones).toEqual([]);
      if (c.e164) expect(c.e164).toMatch(/^\+(549|52|57|34|56)\d{8,11}$/);
      if (c.custom['Fecha de nacimiento']) expect(c.custom['Fecha de nacimiento']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
    expect(kinds.invalid / n).toBeGreaterThan(0.02);
    expect(kinds.invalid / n).toBeLessThan(0.04);
    expect(kinds.duplicate / n).toBeGreaterThan(0.005);
    expect(kinds.duplicate / n).toBeLessThan(0.02);
    expect(kinds.none / n).toBeGreaterThan(0.03);
    // Duplicated contacts reuse a number another contact has.
    const repeated = [...e164s.values()].filter((k) => k > 1).length;
    expect(repeated).toBeGreaterThan(kinds.duplicate * 0.8);
    expect(international / n).toBeGreaterThan(0.4);
    expect(international / n).toBeLessThan(0.75);
    expect(secondPhone).toBeGreaterThan(0);
    expect(email / n).toBeGreaterThan(0.6);
    expect(bare).toBeGreaterThan(0);
    expect(accented / n).toBeGreaterThan(0.2);
    expect(countries).toEqual(new Set(['AR', 'MX', 'CO', 'ES', 'CL']));
    for (const f of FIELD_NAMES) expect(empty[f]).toBeGreaterThan(0);
  });

  it('writes phones in national and international formats', () => {
    const values = [...generateContacts(2, 3000)].flatMap((c) => c.phones.map((p) => p.value));
    expect(values.some((v) => v.startsWith('+54 9 '))).toBe(true);
    expect(values.some((v) => / 15[- ]/.test(v) && v.startsWith('0'))).toBe(true);
    expect(values.some((v) => v.startsWith('+52 1 '))).toBe(true);
    expect(values.some((v) => v.startsWith('+57'))).toBe(true);
    expect(values.some((v) => v.startsWith('+34'))).toBe(true);
    expect(values.some((v) => v.startsWith('+56 9'))).toBe(true);
    expect(values.some((v) => /^\d/.test(v))).toBe(true);
  });
});
