import type { ContactFilterInput } from '@masivo/contract/contact-filter';

/** Spec §9: the recipient count is cached for 30 s. */
export const RECIPIENT_COUNT_TTL_MS = 30_000;
const MAX_ENTRIES = 2_000;

/** Same filter, same key, whatever the order of object keys or of tags. */
export function filterKey(f: ContactFilterInput): string {
  const fields = Object.entries(f.customFieldFilters ?? {})
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => [k, v.mode, [...(v.values ?? [])].sort(), v.manualValue ?? v.value ?? '']);
  return JSON.stringify([(f.searchQuery ?? '').trim(), [...(f.tags ?? [])].sort(), f.tagOperator ?? 'OR', fields]);
}

export function createRecipientCountCache(ttlMs = RECIPIENT_COUNT_TTL_MS) {
  const entries = new Map<string, { value: number; expires: number }>();
  return {
    async get(key: string, compute: () => Promise<number>): Promise<number> {
      const now = Date.now();
      const hit = entries.get(key);
      if (hit && hit.expires > now) return hit.value;
      const value = await compute();
      entries.delete(key);
      entries.set(key, { value, expires: now + ttlMs });
      // Maps iterate in insertion order: the first key is the oldest.
      if (entries.size > MAX_ENTRIES) entries.delete(entries.keys().next().value!);
      return value;
    },
    clear: () => entries.clear(),
  };
}
