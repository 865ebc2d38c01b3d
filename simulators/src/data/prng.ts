// A tiny, fast, seedable PRNG. Every generated contact gets its own stream derived from
// (seed, index), so any contact can be produced in O(1) without generating the ones before it.

/** Final avalanche step of MurmurHash3: spreads every input bit over the whole word. */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** 32-bit hash of (seed, index, salt). Different salts give independent streams for one contact. */
export function hashSeed(seed: number, index: number, salt = 0): number {
  let h = fmix32((seed | 0) ^ 0x5bd1e995 ^ Math.imul(salt | 0, 0x27d4eb2f));
  h = fmix32(h ^ (index >>> 0));
  return fmix32(h + Math.floor(index / 4294967296));
}

/** mulberry32: returns a function yielding floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Rng = () => number;

export function pick<T>(rng: Rng, items: readonly T[]): T {
  return items[Math.floor(rng() * items.length)];
}

/** Picks by weight; weights need not sum to 1. */
export function pickWeighted<T>(rng: Rng, items: readonly (readonly [T, number])[]): T {
  let total = 0;
  for (const [, w] of items) total += w;
  let x = rng() * total;
  for (const [item, w] of items) {
    x -= w;
    if (x < 0) return item;
  }
  return items[items.length - 1][0];
}

/** A string of `n` random digits, the first one drawn from `firstDigits`. */
export function digits(rng: Rng, n: number, firstDigits = '0123456789'): string {
  let s = firstDigits[Math.floor(rng() * firstDigits.length)];
  for (let i = 1; i < n; i++) s += String(Math.floor(rng() * 10));
  return s;
}
