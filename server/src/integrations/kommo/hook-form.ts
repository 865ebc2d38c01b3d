/**
 * Kommo posts its webhooks as `application/x-www-form-urlencoded` with bracket keys
 * (`leads[status][0][status_id]=142`). This turns such a body into nested objects, and objects
 * whose keys are exactly 0..n-1 into arrays. It is strict because the body comes from anyone who
 * knows an address: the body, the number of pairs, the key length and the nesting are bounded,
 * and keys that would reach an object's prototype are refused, not skipped. The result is built
 * on null-prototype objects, then validated by the contract's zod schema.
 */

export const HOOK_FORM_LIMITS = {
  /** Bytes of body; Kommo's batches are a few kilobytes per entity. */
  bodyBytes: 512 * 1024,
  /** key=value pairs. */
  pairs: 5_000,
  /** Bracket levels after the name (`leads[status][0][custom_fields][0][values][0][value]` is 7). */
  depth: 8,
  keyChars: 300,
  /** Items of one array (Kommo sends at most a page of entities per POST). */
  arrayItems: 500,
} as const;

const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);
/** A name, then any number of `[segment]`; a segment holds no brackets. */
const KEY = /^([^[\]]+)((?:\[[^[\]]*\])*)$/;
const SEGMENT = /\[([^[\]]*)\]/g;

export class HookFormError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HookFormError';
  }
}

type Node = { [key: string]: Node | string };

export function parseHookForm(body: string): Record<string, unknown> {
  if (Buffer.byteLength(body, 'utf8') > HOOK_FORM_LIMITS.bodyBytes) throw new HookFormError('body too large');
  const root: Node = Object.create(null) as Node;
  if (body.trim() === '') return root;
  const pairs = body.split('&');
  if (pairs.length > HOOK_FORM_LIMITS.pairs) throw new HookFormError('too many pairs');
  for (const pair of pairs) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const key = decode(eq === -1 ? pair : pair.slice(0, eq));
    const value = eq === -1 ? '' : decode(pair.slice(eq + 1));
    if (key.length > HOOK_FORM_LIMITS.keyChars) throw new HookFormError('key too long');
    const path = pathOf(key);
    put(root, path, value);
  }
  return toArrays(root) as Record<string, unknown>;
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    throw new HookFormError('malformed percent-encoding');
  }
}

function pathOf(key: string): string[] {
  const m = KEY.exec(key);
  if (!m) throw new HookFormError('malformed key');
  const path = [m[1]];
  for (const seg of m[2].matchAll(SEGMENT)) path.push(seg[1]);
  if (path.length - 1 > HOOK_FORM_LIMITS.depth) throw new HookFormError('nested too deep');
  for (const p of path) if (FORBIDDEN.has(p)) throw new HookFormError('forbidden key');
  return path;
}

function put(root: Node, path: string[], value: string) {
  let node = root;
  for (let i = 0; i < path.length; i++) {
    let seg = path[i];
    // `a[]=x&a[]=y`: each empty segment appends.
    if (seg === '') seg = String(Object.keys(node).length);
    const last = i === path.length - 1;
    const existing = node[seg];
    if (last) {
      if (typeof existing === 'object') throw new HookFormError('key is both a value and an object');
      node[seg] = value; // a repeated key keeps its last value
      return;
    }
    if (existing === undefined) {
      const child = Object.create(null) as Node;
      node[seg] = child;
      node = child;
    } else if (typeof existing === 'string') {
      throw new HookFormError('key is both a value and an object');
    } else {
      node = existing;
    }
  }
}

/** Objects keyed exactly 0..n-1 become arrays (Kommo's item lists); anything else stays an object. */
function toArrays(node: Node | string): unknown {
  if (typeof node === 'string') return node;
  const keys = Object.keys(node);
  const dense = keys.length > 0 && keys.every((k, i) => k === String(i));
  if (dense) {
    if (keys.length > HOOK_FORM_LIMITS.arrayItems) throw new HookFormError('too many items');
    return keys.map((k) => toArrays(node[k]));
  }
  const out = Object.create(null) as Record<string, unknown>;
  for (const k of keys) out[k] = toArrays(node[k]);
  return out;
}
